// A setting that cannot be used as given: out of the range its model allows (--max-length beyond
// the model's positions, a --layer-map naming layers the teacher lacks), or not with another
// setting (--alpha without --private-data). Often known only once a model is read, it is still
// the user's setting that is wrong, so the command line exits 2 (usage) as for any flag out of
// its fixed range (engine/cli/number-flags.ts), not 1 as for a failed run.

import { maxSequenceLength, type EncoderConfig } from '../model/config.ts';

/** A setting that cannot be used as given; `message` names the flag and what it may be. */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}

/**
 * Refuses a window longer than the positions of one of `models` (`whose`: how the message names
 * it, "model's", "teacher's"). `setting` names the length: the flag given, or where it came from.
 */
export function checkMaxLength(maxLength: number, models: readonly { whose: string; config: Pick<EncoderConfig, 'architecture' | 'maxPositions' | 'padTokenId'> }[], setting = `--max-length ${maxLength}`): void {
  for (const { whose, config } of models) {
    const positions = maxSequenceLength(config);
    if (maxLength > positions) throw new SettingError(`${setting} exceeds the ${whose} ${positions} positions; give --max-length ${positions} or less`);
  }
}
