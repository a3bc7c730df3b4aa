// Keyboard focus across updates that disable or remove the focused control (a Start button while
// its job starts, a Stop button when the job ends): without help the browser drops focus to
// <body>, and a keyboard or screen-reader user has to find their place again.
import { tick } from 'svelte';
import type { Attachment } from 'svelte/attachments';

type Target = HTMLElement | null | undefined;

function usable(el: Element | null | undefined): el is HTMLElement {
  return !!el && el.isConnected && !(el instanceof HTMLButtonElement && el.disabled);
}

/**
 * Call before an update that may disable or remove `going` (from a `$effect.pre`, or before the
 * state change): if focus is inside one of them, the first usable element of `next()` gets it
 * once the DOM has updated, unless something else has taken focus meanwhile.
 */
export function handOverFocus(going: Target[], next: () => Target[]): void {
  const active = document.activeElement;
  if (active === null || active === document.body || !going.some((el) => el?.contains(active)))
    return;
  void tick().then(() => {
    const now = document.activeElement;
    const isLost = now === null || now === document.body || (now === active && !usable(active));
    if (isLost) next().find(usable)?.focus();
  });
}

/** Focuses the main heading of `root` (made focusable by script only: tabindex -1). */
export function focusHeading(root: HTMLElement | null | undefined): void {
  const heading = root?.querySelector<HTMLElement>('h1') ?? null;
  const el = heading ?? root;
  if (!el) return;
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus({ preventScroll: false });
}

/**
 * Back from a screen opened from a list (the editor from Documents): the keyboard goes on from the
 * heading to the list's link to what was open, `href`, when `root` shows it (a keyboard user keeps
 * their place in a long list); not when focus has moved on from the heading meanwhile. Whether
 * the link was there to focus.
 */
export function focusLinkBack(root: HTMLElement | null | undefined, href: string): boolean {
  const active = document.activeElement;
  const isAtHeading = active === null || active === document.body || active === root?.querySelector('h1');
  const link = [...(root?.querySelectorAll<HTMLElement>('a[href]') ?? [])].find((a) => a.getAttribute('href') === href);
  if (!isAtHeading || !link) return false;
  link.focus();
  return true;
}

/**
 * Attachment for a panel that a button opens in place (Import…, Export…): Escape inside it
 * calls `close`, and when the panel goes while the keyboard is in it (or focus is already lost),
 * the keyboard goes back to what had it when the panel opened (its button), as a dialog's does.
 */
export function closablePanel(close: () => void): Attachment<HTMLElement> {
  return (node) => {
    const active = document.activeElement;
    const opener = active instanceof HTMLElement && active !== document.body ? active : null;
    const onkeydown = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close();
    };
    node.addEventListener('keydown', onkeydown);
    return () => {
      node.removeEventListener('keydown', onkeydown);
      const at = document.activeElement;
      if (!opener || !(at === null || at === document.body || node.contains(at))) return;
      void tick().then(() => {
        const now = document.activeElement;
        if ((now === null || now === document.body || !now.isConnected) && opener.isConnected)
          opener.focus();
      });
    };
  };
}

/**
 * handOverFocus for an asynchronous `action` (a removal answered later): if focus was inside one
 * of `going` when it started and is lost once it has ended, the first usable of `next()` gets it.
 */
export async function keepFocusThrough<T>(
  going: Target[],
  action: () => Promise<T>,
  next: () => Target[],
): Promise<T> {
  const active = document.activeElement;
  const hadFocus =
    active !== null && active !== document.body && going.some((el) => el?.contains(active));
  try {
    return await action();
  } finally {
    if (hadFocus) {
      await tick();
      const now = document.activeElement;
      if (now === null || now === document.body || !usable(now)) next().find(usable)?.focus();
    }
  }
}

/**
 * Attachment for a region that scrolls only when its content is taller than it (a list with a
 * `max-height`): it is a Tab stop while it scrolls, so the keyboard can scroll it, and not
 * otherwise, where a stop that does nothing only slows the way through the page.
 */
export const tabStopWhileScrollable: Attachment<HTMLElement> = (node) => {
  const update = (): void => {
    const scrolls = node.scrollHeight > node.clientHeight;
    if (scrolls && node.getAttribute('tabindex') !== '0') node.setAttribute('tabindex', '0');
    else if (!scrolls && node.hasAttribute('tabindex') && document.activeElement !== node) node.removeAttribute('tabindex');
  };
  // The region's own size and each child's (a <details> opening or closing) decide it.
  const sizes = new ResizeObserver(update);
  const watchChildren = (): void => {
    sizes.disconnect();
    sizes.observe(node);
    for (const child of node.children) sizes.observe(child);
    update();
  };
  const children = new MutationObserver(watchChildren);
  children.observe(node, { childList: true });
  watchChildren();
  return () => {
    sizes.disconnect();
    children.disconnect();
  };
};

/**
 * Attachment for a group of fields that is not a <form> (a panel, a table row): Enter in one of
 * its text fields, radio buttons or check boxes calls `submit`, as a form's fields do (it did nothing, so a keyboard user had
 * to find the button, and a name typed next ran on into the same field).
 */
export function submitsOnEnter(submit: () => void): Attachment<HTMLElement> {
  return (node) => {
    const onkeydown = (e: KeyboardEvent): void => {
      const field = e.target;
      if (e.key !== 'Enter' || e.isComposing || e.defaultPrevented) return;
      // A radio button or check box too (the Import panel's patient-information choice, usually
      // the last thing set): browsers submit a form from those on Enter as well.
      if (!(field instanceof HTMLInputElement) || !['text', 'search', 'number', 'radio', 'checkbox'].includes(field.type)) return;
      if (field.form !== null) return; // a form inside (Rename…) submits itself
      e.preventDefault();
      submit();
    };
    node.addEventListener('keydown', onkeydown);
    return () => node.removeEventListener('keydown', onkeydown);
  };
}
