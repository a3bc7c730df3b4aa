// Paths typed on the command line with a leading `~`. The shell expands `--model ~/m` but leaves
// `--model=~/m` and a quoted "~/notes" as they are: every command then looked for a folder named
// `~` in the current one, and an output flag (`--out=~/preds`) made one, which a later `rm -r ~`
// (meant for that stray folder) turns into removing the home folder. One rule for every
// path-taking flag, the one --data-dir follows (resolveUserPath): a leading `~` or `~/` (`~\` on
// Windows) is the home folder. `~NAME` (another user's home to the shell) is not expanded, and
// refused unless it exists as typed: written to, it would make a folder `~NAME` here.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveUserPath } from '../serve/data-dir.ts';
import { UsageError, type Opts } from './args.ts';
import type { CommandSpec, FlagSpec } from './commands.ts';

/** Placeholders of a flag that takes one path, and of one that takes a comma-separated list. */
const ONE_PATH = /^(DIR|OUT|FILE|PATH|FILE_OR_FOLDER|[A-Z]+\.[a-z]+)$/;
const PATH_LIST = /^(PATH\[,…\]|SOURCES)$/;

/** Whether the flag takes a path ('one'), a comma-separated list of them ('list'), or none. */
export function pathKind(flag: FlagSpec): 'one' | 'list' | undefined {
  if (flag.arg === undefined) return undefined;
  return ONE_PATH.test(flag.arg) ? 'one' : PATH_LIST.test(flag.arg) ? 'list' : undefined;
}

/** `p` with a leading `~` or `~/` as the home folder (absolute); any other path as typed. */
export function expandHome(p: string, home?: string): string {
  const full = resolveUserPath(p, home);
  return full === resolve(p) ? p : full;
}

function checkNotOtherHome(p: string, flag: string): void {
  if (!p.startsWith('~') || existsSync(p)) return;
  throw new UsageError(
    `${flag} "${p}": only a leading ~ or ~/ means your home folder, and "${p.split(/[/\\]/)[0] ?? p}" is not expanded; type the path in full (or ./${p} for a folder of that name here)`,
  );
}

function expandOne(p: string, flag: string, home?: string): string {
  const out = expandHome(p, home);
  checkNotOtherHome(out, flag);
  return out;
}

/**
 * `opts` and `positionals` with `~` expanded in every path the command takes: its path flags
 * (each source of a comma-separated list) and the folder `model inspect` and `model export` name.
 */
export function expandPathArgs(
  spec: CommandSpec,
  opts: Opts,
  positionals: readonly string[],
  home?: string,
): { opts: Opts; positionals: string[] } {
  const out: Opts = { ...opts };
  for (const flag of spec.flags) {
    const v = opts[flag.name];
    const kind = pathKind(flag);
    if (typeof v !== 'string' || v === '' || kind === undefined) continue;
    const name = `--${flag.name}`;
    // A list keeps its commas and spaces (sourceList splits it, minding commas inside names).
    out[flag.name] =
      kind === 'one'
        ? expandOne(v, name, home)
        : v
            .split(',')
            .map((part) => {
              const item = part.trim();
              return item === '' || !item.startsWith('~') ? part : part.replace(item, expandOne(item, name, home));
            })
            .join(',');
  }
  const at = spec.name === 'model inspect' || spec.name === 'model export' ? 2 : -1;
  const args = [...positionals];
  if (at >= 0 && args[at] !== undefined) args[at] = expandOne(args[at], spec.name, home);
  return { opts: out, positionals: args };
}
