// The most onnxruntime threads a setting may ask for, apart from session.ts so the CLI's flag
// checks can name it without loading onnxruntime.

/** More onnxruntime threads than any laptop has cores only cost memory: ORT starts every thread asked for. */
export const MAX_THREADS = 256;
