// Per-command help and the refusal of flags a command does not read.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from './commands.ts';
import { main, OPTIONS } from './main.ts';
import { checkLearningRate } from '../train/step-guard.ts';
import { defaultLearningRate, defaultPretrainLearningRate, GENERAL_DISTILL_LR } from '../tasks/train-defaults.ts';

function capture(): { out: () => string; err: () => string } {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  return { out: () => log.mock.calls.map((c) => String(c[0])).join('\n'), err: () => error.mock.calls.map((c) => String(c[0])).join('\n') };
}

afterEach(() => vi.restoreAllMocks());

describe('benchtop COMMAND --help', () => {
  it('every flag a command lists is one the parser knows, and every parser flag belongs to a command', () => {
    const parser = new Set(Object.keys(OPTIONS));
    const listed = new Set<string>();
    for (const c of COMMANDS) {
      for (const f of c.flags) {
        expect(parser.has(f.name), `${c.name} --${f.name}`).toBe(true);
        listed.add(f.name);
      }
      expect(new Set(c.flags.map((f) => f.name)).size, `${c.name} lists a flag twice`).toBe(c.flags.length);
    }
    expect([...parser].filter((n) => n !== 'help' && n !== 'version' && !listed.has(n))).toEqual([]);
  });

  it("prints one command's flags with their defaults, the same through `help COMMAND`", async () => {
    const a = capture();
    expect(await main(['train', 'ner', '--help'])).toBe(0);
    const page = a.out();
    expect(page).toMatch(/^benchtop train — fine-tune/);
    expect(page).toMatch(/--epochs N\s+passes over the training data \(default: 3, or more for little data/);
    expect(page).toMatch(/--patience N\s+.*\(default 3; 0 never stops early\)/);
    expect(page).not.toContain('--transfer');
    // Without --dev, a tenth of the training data is held out: the page did not say so.
    expect(page).toMatch(/--dev PATH\s+development data .*\(default: a seeded 10% of the --train data, held out from training\)/);
    // GAD's negative label is 0, found in the data; the page used to say "(default false)".
    expect(page).toMatch(/--negative-label L\s+RE: the "no relation" class \(default: the data's false, 0, no_relation, none, negative, NA or other label\)/);
    // A run stopped by its time limit saves its model and keeps no checkpoint to resume from.
    expect(page).toMatch(/--max-minutes X\s+stop after X minutes and save the model trained so far/);
    vi.restoreAllMocks();
    const b = capture();
    expect(await main(['help', 'train'])).toBe(0);
    expect(b.out()).toBe(page);
    vi.restoreAllMocks();
    const c = capture();
    expect(await main(['model', 'inspect', '--help'])).toBe(0);
    expect(c.out()).toMatch(/--json\s+print JSON/);
    expect(c.out().split('benchtop model inspect — ').length).toBe(2);
    // "model" alone used to be an unknown command; its help lists both subcommands (until
    // 2026-11-25 it was inspect's page alone, and "benchtop model" named only inspect).
    vi.restoreAllMocks();
    const d = capture();
    expect(await main(['model', '--help'])).toBe(0);
    expect(await main(['help', 'model'])).toBe(0);
    expect(d.out().split('  benchtop model inspect DIR [--json]\n').length).toBe(3);
    expect(d.out().split('  benchtop model export DIR --out OUT [--withhold-names] [--onnx]\n').length).toBe(3);
    expect(d.out()).toContain('Run "benchtop model inspect --help" or "benchtop model export --help" for a subcommand\'s options.');
    vi.restoreAllMocks();
    const e = capture();
    expect(await main(['model'])).toBe(2);
    expect(e.err()).toBe(
      'benchtop: error: "benchtop model" needs a subcommand, inspect or export; usage: benchtop model inspect DIR [--json], or benchtop model export DIR --out OUT [--withhold-names] [--onnx]',
    );
  });

  it('every command taking --lr states the range checkLearningRate accepts and the default the run takes', async () => {
    // The range in the words of the refusal of a rate outside it.
    expect(() => checkLearningRate(2)).toThrow('--lr must be a number > 0 and ≤ 1, got 2');
    // The defaults the runs take (train and distill: defaultLearningRate, by the model's size).
    expect([defaultLearningRate(true, 256), defaultLearningRate(true, 257), defaultLearningRate(false, 768)]).toEqual([5e-4, 5e-5, 5e-4]);
    expect([defaultPretrainLearningRate(true), defaultPretrainLearningRate(false), GENERAL_DISTILL_LR]).toEqual([1e-4, 5e-4, 5e-4]);
    const want: Record<string, string> = {
      train: '5e-4 from --preset or a --model of hidden size ≤ 256, such as the default student; 5e-5 from a larger --model',
      distill: '5e-4 from --student-preset or a --student (or --init-from-teacher student) of hidden size ≤ 256, such as the default student; 5e-5 from a larger --student (or --init-from-teacher student)',
      pretrain: '1e-4 from --model, 5e-4 from --preset',
      'distill-general': '5e-4',
    };
    expect(COMMANDS.filter((c) => c.flags.some((x) => x.name === 'lr')).map((c) => c.name)).toEqual(Object.keys(want));
    for (const [name, defaults] of Object.entries(want)) {
      const a = capture();
      expect(await main([name, '--help'])).toBe(0);
      // pretrain, distill and distill-general used to leave the range out.
      expect(a.out(), name).toMatch(/--lr X {2,}peak learning rate, a number > 0 and ≤ 1 \(default /);
      expect(a.out(), name).toContain(`a number > 0 and ≤ 1 (default ${defaults})\n`);
      vi.restoreAllMocks();
    }
  });

  it('the global help lists every command and points to the per-command pages', async () => {
    const a = capture();
    expect(await main(['--help'])).toBe(0);
    for (const c of COMMANDS) expect(a.out()).toContain(`benchtop ${c.name}`);
    expect(a.out()).toContain('benchtop COMMAND --help');
  });

  it('refuses a flag the command does not read instead of ignoring it', async () => {
    const a = capture();
    expect(await main(['predict', '--model', 'm', '--input', 'i', '--out', 'o', '--format', 'jsonl', '--epochs', '3'])).toBe(2);
    expect(a.err()).toContain('predict does not take --epochs (see "benchtop predict --help")');
    expect(await main(['eval', 'ner', '--model', 'm', '--data', 'd', '--overwrite', '--lr', '1'])).toBe(2);
    expect(a.err()).toContain('eval does not take --overwrite, --lr');
    // Flags that shape a new model (--preset) were ignored next to a --model folder.
    expect(await main(['train', 'ner', '--model', 'm', '--train', 't', '--out', 'o', '--vocab', 'v.txt', '--cased'])).toBe(2);
    expect(a.err()).toContain('--vocab, --cased go with --preset; a --model folder keeps its own vocabulary, architecture and casing');
    expect(await main(['pretrain', '--model', 'm', '--text', 't', '--out', 'o', '--arch', 'distilbert'])).toBe(2);
    expect(a.err()).toContain('--arch goes with --preset; a --model folder keeps its own');
    expect(await main(['pretrain', '--model', 'm', '--preset', 'small-2L-128', '--text', 't', '--out', 'o'])).toBe(2);
    expect(a.err()).toContain('give either --model DIR (continual pretraining) or --preset NAME (from scratch), not both');
    expect(await main(['train', 'ner', '--model', 'm', '--train', 't', '--out', 'o', '--negative-label', 'false'])).toBe(2);
    expect(a.err()).toContain('--negative-label applies to train re only');
    expect(await main(['train', 're', '--model', 'm', '--train', 't', '--out', 'o', '--stride', '10'])).toBe(2);
    expect(a.err()).toContain('--stride applies to train ner only');
  });

  it('names the command page for an unknown flag and lists the commands for an unknown command', async () => {
    const a = capture();
    expect(await main(['train', 'ner', '--epoch', '3'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: unknown flag --epoch for train; did you mean --epochs? (see "benchtop train --help")');
    // Node's own words were advice on positional arguments starting with a dash, with no hint.
    expect(await main(['init-model', '--arch', 'bert', '--lables', 'a,b', '--out', 'x'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: unknown flag --lables for init-model; did you mean --labels? (see "benchtop init-model --help")');
    // One dash: Node's parser reads "-epochs" as -e -p -o … and named only "-e".
    expect(await main(['train', 'ner', '-epochs', '3'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: unknown flag -epochs for train; flags take two dashes: did you mean --epochs? (see "benchtop train --help")');
    // Two hyphens that a word processor turned into a dash were "unexpected argument".
    expect(await main(['predict', '--model', 'm', '\u2014input', 'notes', '--out', 'o.jsonl', '--format', 'jsonl'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: "\u2014input" starts with a typographic dash, not two hyphens; type it as --input');
    expect(await main(['predict', '--xyzzy', 'v'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: unknown flag --xyzzy for predict (see "benchtop predict --help")');
    // A flag of another command, one slip away from this one's.
    expect(await main(['forward', '--model', 'm', '--input', 'in.json', '--out', 'o.json'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: forward does not take --input; did you mean --inputs? (see "benchtop forward --help")');
    // A negative number is read as a flag by Node's parser: one error line saying how to give it.
    expect(await main(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--seed', '-1', '--out', 'x'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toMatch(
      /^benchtop: error: Option '--seed' argument is ambiguous\. .*use '--seed=-XYZ'\. \(see "benchtop init-model --help"\)$/,
    );
    // A missing or unknown task said only "usage: benchtop train ner|re …".
    expect(await main(['train', 'pos', '--train', 't', '--out', 'o'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: "benchtop train" needs the task first, ner or re, not "pos"; usage: benchtop train ner|re (--model DIR | --preset NAME [--vocab FILE]) --train PATH [--dev PATH] [--test PATH] --out DIR');
    expect(await main(['eval', '--model', 'm', '--data', 'd'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: "benchtop eval" needs the task first, ner or re; usage: benchtop eval ner|re --model DIR --data PATH [--json]');
    expect(await main(['trian'])).toBe(2);
    expect(a.err().split('\n').at(-1)).toBe('benchtop: error: unknown command "trian"; did you mean "train"? (see "benchtop --help")');
    expect(await main(['launch'])).toBe(2);
    expect(a.err()).toMatch(/unknown command "launch"; the commands are: start, serve, model inspect, init-model/);
    expect(await main(['help', 'nope'])).toBe(2);
    expect(a.err()).toMatch(/unknown command "nope"/);
  });
});

describe('init-model --task', () => {
  it('names the value given, and takes no name from Object.prototype for a task', async () => {
    const a = capture();
    for (const task of ['NER', 'toString', 'constructor']) {
      expect(await main(['init-model', '--arch', 'bert', '--preset', 'small-2L-128', '--task', task, '--labels', 'a,b', '--out', 'never'])).toBe(2);
      expect(a.err().split('\n').at(-1)).toBe(
        `benchtop: error: --task must be one of token-classification, ner, sequence-classification, re, masked-lm, mlm; got "${task}"`,
      );
    }
  });
});

describe('benchtop --version', () => {
  it("prints package.json's version and exits 0; after a command it is that command's unknown flag", async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const a = capture();
    expect(await main(['--version'])).toBe(0);
    expect(a.out()).toBe(pkg.version);
    expect(await main(['forward', '--version'])).toBe(2);
    expect(a.err()).toContain('forward does not take --version');
  });
});
