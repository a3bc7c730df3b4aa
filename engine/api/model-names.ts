// Model display names: one per model, ignoring case and Unicode composition, across the library
// and the shipped models. A name the user types is checked (newModelName: refused with the
// reason); a name Benchtop makes (a folder's name, a training run's) gets " (2)", " (3)"… instead.
import { listModels } from '../store/models.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import { shippedFolders } from './shipped-models.ts';

/** The longest model name, in characters (the Models table and run pickers show it whole). */
const MAX_NAME = 200;

/**
 * Invisible characters (zero-width space, word joiner, byte-order mark) and direction marks and
 * overrides would let two names look the same, or one read differently from what it is. (The
 * zero-width joiners of emoji sequences and Persian or Indic words are allowed.)
 */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2060\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Refuses a typed display name (`what`: "A model name") holding control, invisible or direction characters. */
export function checkVisibleName(name: string, what: string): void {
  if (name.search(HIDDEN) >= 0)
    throw new ApiError('invalid', `${what} cannot contain control, invisible or text-direction characters; type plain text.`);
}

/**
 * An entity or relation type name as typed (`what`: "An entity type name"), trimmed (the request
 * check refuses a blank one), with no control, invisible or direction characters: a tab or line
 * break would also break the CoNLL and brat files the type is exported to.
 */
export function typeName(typed: string, what: string): string {
  const name = typed.trim();
  checkVisibleName(name, what);
  return name;
}

/** A name Benchtop makes from a file's (a dataset named after its file): those characters left out. */
export function visibleName(name: string): string {
  return name.replace(HIDDEN, '');
}

/**
 * A model's new display name, checked: trimmed, runs of spaces, tabs or line breaks made one
 * space; not empty, not too long, no control characters, and no other model (library or
 * shipped) called the same ignoring case.
 */
export function newModelName(ctx: ApiContext, modelId: string, typed: string): string {
  // NFC: "é" typed as e + accent is the same name as "é", shown and compared alike.
  const name = typed.normalize('NFC').trim().replace(/\s+/g, ' ');
  if (name === '') throw new ApiError('invalid', 'A model name cannot be empty; type a name.');
  const length = [...name].length;
  if (length > MAX_NAME)
    throw new ApiError(
      'invalid',
      `A model name can have at most ${MAX_NAME} characters; this one has ${length}. Shorten it.`,
    );
  checkVisibleName(name, 'A model name');
  const taken = takenNames(ctx, modelId).get(fold(name));
  if (taken !== undefined)
    throw new ApiError(
      'conflict',
      `Another model is already called “${taken}”; choose a name no other model has.`,
    );
  return name;
}

/** Every model's name by its folded form (library and shipped), but model `exceptId`'s. */
function takenNames(ctx: ApiContext, exceptId = ''): Map<string, string> {
  const names = [
    ...shippedFolders(ctx).map((f) => f.name),
    ...listModels(ctx.ws.read)
      .filter((m) => m.id !== exceptId)
      .map((m) => m.name),
  ];
  return new Map(names.map((n) => [fold(n), n]));
}

/** A name as compared with others: composed (NFC) and in lower case. */
export function fold(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * `name` cut to at most `max` characters (code points, as newModelName counts them) between two
 * letters as shown: never inside a surrogate pair, an accented letter or an emoji sequence.
 */
export function clipName(name: string, max = MAX_NAME): string {
  if ([...name].length <= max) return name;
  let out = '';
  let length = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(name)) {
    length += [...segment].length;
    if (length > max) break;
    out += segment;
  }
  return out.trimEnd();
}

/**
 * `base`, or `base (2)`, `base (3)`… : the first no model has yet, `base` cut so that the name
 * keeps within a model name's length (a long folder or run name, or two of them).
 */
export function uniqueModelName(ctx: ApiContext, base: string): string {
  const taken = takenNames(ctx);
  const whole = clipName(base);
  if (!taken.has(fold(whole))) return whole;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const name = `${clipName(base, MAX_NAME - suffix.length)}${suffix}`;
    if (!taken.has(fold(name))) return name;
  }
}
