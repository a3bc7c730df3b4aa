// ESLint flat config: typescript-eslint (type-checked), svelte, and the module boundaries of
// ARCHITECTURE.md (engine never imports electron/renderer; one importer each of
// onnxruntime-node, koffi and the protobuf schema; better-sqlite3 is imported by the store and
// by io/os-lock.ts, whose OS file locks are SQLite's exclusive locking mode).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ORT = { name: 'onnxruntime-node', message: 'Only engine/runtime/session.ts imports onnxruntime-node.' };
const KOFFI = { name: 'koffi', message: 'Only engine/runtime/ort-capi.ts calls native code through koffi.' };

const engineOnly = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'coverage', 'renderer/**/*.svelte', 'resources', '.prof', '.bench', 'test-results'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.engine.json', './tsconfig.electron.json', './tsconfig.renderer.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-lines': ['warn', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  // Plain JS entry points run under Node; TypeScript checks the rest.
  { files: ['**/*.js', '**/*.mjs'], rules: { 'no-undef': 'off' } },
  { files: ['**/*.test.ts', 'tests/**'], rules: { 'max-lines': 'off' } },
  engineOnly(['engine/**/*.ts'], [
    { group: ['electron', 'electron/*'], message: 'engine/ must run under plain Node.' },
    { group: ['**/renderer/**', '**/electron/**'], message: 'engine/ never imports the UI or shell.' },
  ]),
  ...[
    { files: ['engine/**/*.ts'], ignores: ['engine/runtime/session.ts', 'engine/runtime/ort-capi.ts', 'engine/runtime/**/*.test.ts'], forbidden: [ORT, KOFFI] },
    { files: ['engine/runtime/session.ts'], forbidden: [KOFFI] },
    { files: ['engine/runtime/ort-capi.ts'], forbidden: [ORT] },
  ].map(({ files, ignores, forbidden }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*', '**/renderer/**', '**/electron/**'], message: 'engine/ must run under plain Node.' },
        ],
        paths: forbidden,
      }],
    },
  })),
  {
    // The renderer may only `import type` from the engine (contract and DTO types).
    files: ['renderer/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/engine/**', '**/electron/**'], allowTypeImports: true, message: 'renderer reaches the engine only through lib/api.ts (type imports are fine).' }],
      }],
    },
  },
);
