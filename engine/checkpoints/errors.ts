// The one error type for unusable model files (checkpoints, configs, tokenizer files).
// Not for: programming errors or I/O errors unrelated to a model's content.

/** A model file that cannot be used; `message` is `<file>: <reason>`. */
export class CheckpointError extends Error {
  /** Path of the offending file or folder. */
  readonly file: string;
  /** What is wrong, and where possible how to fix it. */
  readonly reason: string;

  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'CheckpointError';
    this.file = file;
    this.reason = reason;
  }
}
