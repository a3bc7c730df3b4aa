// Short notices shown in a live region ("Saved 12 documents", errors that need no decision).
// Only the latest few are shown; the rest are counted until they expire or are dismissed.
export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
}

/** Notices shown at once: five imports in a row took a third of a 768 px window. */
export const MAX_SHOWN = 3;

class Toasts {
  items = $state<Toast[]>([]);
  #next = 1;

  /** The latest notices, oldest first (at most MAX_SHOWN). */
  get shown(): Toast[] {
    return this.items.slice(-MAX_SHOWN);
  }

  /** How many earlier notices are not shown. */
  get hiddenCount(): number {
    return Math.max(0, this.items.length - MAX_SHOWN);
  }

  show(kind: Toast['kind'], text: string, ms = kind === 'error' ? 8000 : 4000): void {
    const id = this.#next++;
    this.items.push({ id, kind, text });
    setTimeout(() => this.dismiss(id), ms);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((t) => t.id !== id);
  }

  dismissAll(): void {
    this.items = [];
  }
}

export const toasts = new Toasts();
