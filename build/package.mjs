// `npm run package [-- <electron-builder args>]`: desktop installers with electron-builder
// (build/electron-builder.yml). Checks first that the Electron binary is installed, with a plain
// message instead of a download stack trace, then runs `electron-vite build` and electron-builder,
// and finally puts back the Node build of better-sqlite3 that electron-builder's native rebuild
// replaced with an Electron one (the tests and the CLI run under Node). Not part of CI.
//
//   npm run package                       installers for this platform (see the config)
//   npm run package -- --linux AppImage   one target
//   npm run package -- --dir              unpacked app only (dist/<platform>-unpacked)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The Electron executable that `npm install` put in node_modules/electron, or null. */
function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null; // node_modules/electron without path.txt: its download never ran.
  }
}

function bin(pkg, name) {
  const dir = dirname(require.resolve(`${pkg}/package.json`));
  const { bin: bins } = require(`${pkg}/package.json`);
  return join(dir, typeof bins === 'string' ? bins : bins[name]);
}

function run(what, command, args, options = {}) {
  console.log(`package: ${what}`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (r.error) console.error(`package: ${what} could not start: ${r.error.message}`);
  return r.status ?? 1;
}

/** Size and mtime of the better-sqlite3 addon, to see whether the native rebuild replaced it. */
function sqliteStamp() {
  try {
    const file = join(
      dirname(require.resolve('better-sqlite3/package.json')),
      'build/Release/better_sqlite3.node',
    );
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

// Each platform's installers are built on that platform: npm installs only this platform's
// prebuilt native packages, and the config keeps only this platform's onnxruntime binaries.
const flags = {
  linux: ['--linux', '-l'],
  win32: ['--win', '--windows', '-w'],
  darwin: ['--mac', '--macos', '-m', '-o'],
};
// Single-dash letters combine (`-wl` is `-w -l`) and `--win=nsis` is `--win nsis`, as
// electron-builder's parser reads them.
const given = process.argv
  .slice(2)
  .map((a) => a.replace(/^(--[a-z]+)=.*$/i, '$1'))
  .flatMap((a) => (/^-[a-z]{2,}$/i.test(a) ? [...a.slice(1)].map((c) => `-${c}`) : [a]));
const foreign = Object.entries(flags).find(
  ([platform, names]) => platform !== process.platform && given.some((a) => names.includes(a)),
);
if (foreign !== undefined) {
  console.error(
    `package: build the ${foreign[0]} installers on ${foreign[0]}; this machine is ${process.platform} (README.md, "Packaging").`,
  );
  process.exit(1);
}

if (electronBinary() === null) {
  console.error(`package: the Electron binary is not installed (node_modules/electron has no dist/).

npm installs it from the internet unless ELECTRON_SKIP_BINARY_DOWNLOAD=1 is set, as it is on the
offline build machines and in CI. Packaging also needs the internet: electron-builder downloads
the Electron release for each target, Electron builds of better-sqlite3 and the installer tools.
On a machine with internet access:

  npm ci            (without ELECTRON_SKIP_BINARY_DOWNLOAD)
  node node_modules/electron/install.js   (only if npm skipped electron's install script)
  npm run package

See README.md, "Packaging".`);
  process.exit(1);
}

let status = run('electron-vite build', process.execPath, [
  bin('electron-vite', 'electron-vite'),
  'build',
]);
if (status === 0) {
  const before = sqliteStamp();
  // npm passes its config to scripts as npm_config_*; a `nodedir` there (set on machines that
  // build native modules offline against the system Node's headers) would make the rebuild
  // compile better-sqlite3 against Node's ABI instead of Electron's.
  const env = { ...process.env };
  for (const key of Object.keys(env))
    if (key.toLowerCase() === 'npm_config_nodedir') delete env[key];
  status = run(
    'electron-builder',
    process.execPath,
    [
      bin('electron-builder', 'electron-builder'),
      '--config',
      'build/electron-builder.yml',
      ...process.argv.slice(2),
    ],
    { env },
  );
  if (sqliteStamp() !== before) {
    // npm_execpath is npm's own CLI script when this runs as `npm run package`.
    const npm = process.env['npm_execpath'];
    const restored = npm
      ? run('npm rebuild better-sqlite3 (back to the Node build)', process.execPath, [
          npm,
          'rebuild',
          'better-sqlite3',
        ])
      : run(
          'npm rebuild better-sqlite3 (back to the Node build)',
          'npm',
          ['rebuild', 'better-sqlite3'],
          { shell: process.platform === 'win32' },
        );
    if (restored !== 0) {
      console.error(
        'package: run `npm rebuild better-sqlite3` before the tests or the CLI: node_modules has the Electron build.',
      );
      status ||= restored;
    }
  }
}
if (status === 0) console.log('package: installers are in dist/');
process.exit(status);
