// onnxruntime 1.29+ builds Microsoft's 1DS telemetry into its Linux and macOS libraries, on by
// default (microsoft/onnxruntime#27379): it queues usage events (sessions, graph and producer
// names, error messages, run counts and timings, the OS and CPU) with a persistent device id in
// ~/.cache/Microsoft/DeveloperTools/.onnxruntime (macOS: ~/Library/Application Support/…), and
// uploads them whenever the computer is online; it also leaves `.ses` and `mat-debug-<pid>.log`
// in the temporary folder. Benchtop makes no network calls, so it turns this off:
// ORT_DISABLE_TELEMETRY=1, read when the library initialises, stops the uploader, the events, the
// device id and the offline cache for the whole process. Import this module before
// onnxruntime-node (ES modules run in import order); engine processes also get the variable at
// start (process-env.ts). On Windows the library's events go to ETW instead; ort-capi.ts also
// calls the C API's DisableTelemetryEvents there.

/** The environment that keeps onnxruntime's telemetry off; it overrides the user's own value. */
export const ORT_NO_TELEMETRY_ENV: Readonly<Record<string, string>> = { ORT_DISABLE_TELEMETRY: '1' };

Object.assign(process.env, ORT_NO_TELEMETRY_ENV);
