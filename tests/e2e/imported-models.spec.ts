// Hugging Face folders of the kinds the engine learned to read, used from the Models screen as a
// user would: a sharded checkpoint (model.safetensors.index.json and its shards) and a tokenizer
// with added tokens (RE markers and a word added with add_tokens) are imported, described
// (weights, vocabulary origin, the check-before-sharing caveat), trained from for a few steps on
// the demo project, run over its documents, exported, and the export loads back with the same
// logits. Broken folders (a shard missing, an index naming a tensor its shard lacks, an added
// token past vocab_size) are refused on screen naming the file, and leave nothing in the library.
// The folders are built from the bert-token-classification golden in the suite's temp folder.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECODER, GOLDEN, flags, widenedGolden, withDecoder, withLegacyFiles, writeGoldenFolder } from '../../engine/checkpoints/added-token-test-folders.ts';
import { loadHfFolder } from '../../engine/checkpoints/hf-folder.ts';
import { writeShardedCheckpoint } from '../../engine/checkpoints/test-helpers.ts';
import { cmdForward } from '../../engine/cli/model-commands.ts';
import { predict } from '../../engine/tasks/predict-task.ts';
import { apiCall } from './api-client.ts';
import { type App, ROOT, focusLog, launchDemoApp, recordFocus, screenshot } from './fixtures.ts';

const CAVEAT = 'Check it was not built from private notes before sharing this model';
const STUDENT = join(ROOT, 'resources', 'models', 'default-student');
const TOKENIZER_FILES = ['config.json', 'vocab.txt', 'tokenizer_config.json', 'special_tokens_map.json'];
let app: App;
let folders: Record<'sharded' | 'added' | 'shippedAdded' | 'legacyShards' | 'missingShard' | 'lackingTensor' | 'pastVocab', string>;

/** A copy of the golden whose weights are `n` safetensors shards and an index. */
function shardedGolden(dir: string, n: number, edit?: (map: Record<string, string>) => void): string {
  mkdirSync(dir, { recursive: true });
  for (const f of TOKENIZER_FILES) copyFileSync(join(GOLDEN, f), join(dir, f));
  writeShardedCheckpoint(dir, loadHfFolder(GOLDEN).weights, 'safetensors', n, edit);
  return dir;
}

/** The golden with 5 added tokens as transformers < 4.34 saved them (added_tokens.json), its weights in 2 pytorch_model.bin shards. */
function legacyShardedGolden(dir: string): string {
  writeGoldenFolder(dir, 5, withLegacyFiles);
  rmSync(join(dir, 'model.safetensors'));
  writeShardedCheckpoint(dir, widenedGolden(5).weights, 'pytorch', 2);
  return dir;
}

/** The tokens the model folder `dir` adds after its vocab.txt, as the engine reads them: content -> id. */
function addedTokens(dir: string): Record<string, number> {
  const { tokenizer, vocab } = loadHfFolder(dir);
  return Object.fromEntries((tokenizer.addedTokens ?? []).filter((t) => t.id >= vocab.length).map((t) => [t.content, t.id]));
}

function buildFolders(tmp: string): typeof folders {
  const at = (name: string): string => join(tmp, 'hf', name);
  const missingShard = shardedGolden(at('missing-shard'), 3);
  rmSync(join(missingShard, 'model-00002-of-00003.safetensors'));
  return {
    sharded: shardedGolden(at('sharded-ner'), 3),
    added: writeGoldenFolder(at('markers-ner'), 5, withDecoder(DECODER)),
    // The shipped student's vocab.txt, and a word added after it (add_tokens).
    shippedAdded: writeGoldenFolder(at('student-plus-word'), 1, withDecoder({ '30522': { content: 'Smithson', ...flags(false) } }), STUDENT),
    legacyShards: legacyShardedGolden(at('legacy-shards')),
    missingShard,
    // The index places a tensor in the first shard, which does not hold it.
    lackingTensor: shardedGolden(at('lacking-tensor'), 2, (map) => {
      map['bert.encoder.layer.9.output.dense.bias'] = 'model-00001-of-00002.safetensors';
    }),
    // vocab_size 1000: an added token numbered 1000 has no embedding row.
    pastVocab: writeGoldenFolder(at('past-vocab'), 0, withDecoder({ '1000': { content: '<e1>', ...flags(true) } })),
  };
}

beforeAll(async () => {
  ({ app } = await launchDemoApp());
  folders = buildFolders(app.tmp);
});
afterAll(async () => {
  await app?.close();
});

/**
 * Logits of the model folder `dir` on the goldens' inputs, flattened: `benchtop forward`'s own
 * command, run in this process (a CLI process per model spent most of this suite's time starting
 * tsx and onnxruntime).
 */
async function forwardLogits(dir: string, name: string): Promise<number[]> {
  const meta = JSON.parse(readFileSync(join(GOLDEN, 'goldens.json'), 'utf8')) as { inputs: Record<string, unknown> };
  const { input_ids, attention_mask, token_type_ids } = meta.inputs;
  const inFile = join(app.tmp, `${name}.in.json`);
  const outFile = join(app.tmp, `${name}.out.json`);
  writeFileSync(inFile, JSON.stringify({ input_ids, attention_mask, token_type_ids }));
  await cmdForward({ model: dir, inputs: inFile, out: outFile });
  return (JSON.parse(readFileSync(outFile, 'utf8')) as { logits: number[][][] }).logits.flat(2);
}

/** Fills the Models screen's import form with `path` and `name` (no patient data) and submits it. */
async function importOnScreen(path: string, name: string): Promise<void> {
  const { page } = app;
  await page.getByTestId('nav-models').click();
  const form = page.getByTestId('model-import');
  if ((await form.count()) === 0) await page.getByTestId('open-model-import').click();
  await form.waitFor();
  await form.getByTestId('model-path').fill(path);
  await form.getByTestId('model-name').fill(name);
  await form.getByTestId('model-phi-no').check();
  await form.getByTestId('start-model-import').click();
}

/** The text of the element `testid` in the model detail, spaces collapsed. */
async function detailText(testid: string): Promise<string> {
  const el = app.page.getByTestId('model-detail').getByTestId(testid);
  await el.waitFor();
  return (await el.textContent())!.replace(/\s+/g, ' ').trim();
}

/** The library's models' names. */
async function libraryNames(): Promise<string[]> {
  return (await apiCall(app.server, 'models:list', {})).map((m) => m.name);
}

describe('Models: imported Hugging Face folders from end to end', () => {
  it('imports a sharded checkpoint and says what it holds', async () => {
    const { page } = app;
    await importOnScreen(folders.sharded, 'Sharded NER');
    await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toBe('Sharded NER');
    await expect.poll(() => page.getByTestId('model-import').count()).toBe(0); // the form closed on success
    // The keyboard goes to the model added (the form it was in is gone), not to <body>.
    await expect.poll(() => page.evaluate(`document.activeElement?.getAttribute('aria-pressed') + ' ' + document.activeElement?.textContent`)).toBe('true Sharded NER');
    const model = (await apiCall(app.server, 'models:list', {})).find((m) => m.name === 'Sharded NER')!;
    expect(model.parameters).toBe(65765);
    expect(model.labels).toEqual(['LABEL_0', 'LABEL_1', 'LABEL_2', 'LABEL_3', 'LABEL_4']);
    // Stored joined as one model.safetensors, with the golden's logits.
    expect(readdirSync(join(app.dataDir, model.path)).filter((f) => /^(model|pytorch_model)[.-]/.test(f))).toEqual(['model.safetensors']);
    expect(await forwardLogits(join(app.dataDir, model.path), 'sharded')).toEqual(await forwardLogits(GOLDEN, 'golden'));
    expect(await detailText('model-vocabulary')).toMatch(/^Vocabulary: unknown origin: the imported folder does not record where its vocab\.txt came from\. Its vocab\.txt holds 1,000 tokens \(sha256 a832f69f3bfd…\)\.$/);
    expect(await detailText('model-vocabulary-caveat')).toContain(CAVEAT);
    // Its lineage reads as an import, not as pre-training on a folder.
    expect(await detailText('model-lineage')).toBe('Sharded NER imported from the folder "sharded-ner"');
    await screenshot(page, 'imported-sharded');
  });

  it('imports a tokenizer with added tokens and keeps the check-before-sharing caveat', async () => {
    const { page } = app;
    await importOnScreen(folders.added, 'Markers NER');
    await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toBe('Markers NER');
    // The counts are vocab.txt's: not read as the size of the tokens added after it.
    expect(await detailText('model-vocabulary')).toBe(
      'Vocabulary: unknown origin: the imported folder does not record where its vocab.txt came from; plus 5 tokens added after it, which no record accounts for. Its vocab.txt holds 1,000 tokens (sha256 a832f69f3bfd…).',
    );
    expect(await detailText('model-vocabulary-caveat')).toBe(`Vocabulary of unknown origin ${CAVEAT}: a vocabulary holds words of the text it was built from (names, identifiers), whatever the weights learned.`);
    await screenshot(page, 'imported-added-tokens');
  });

  it('imports pytorch_model.bin shards with an added_tokens.json, keeping the tokens in the library', async () => {
    const { page } = app;
    await importOnScreen(folders.legacyShards, 'Legacy shards');
    await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toBe('Legacy shards');
    expect(await detailText('model-vocabulary')).toMatch(/; plus 5 tokens added after it, which no record accounts for\. Its vocab\.txt holds 1,000 tokens/);
    expect(await detailText('model-vocabulary-caveat')).toContain(CAVEAT);
    const model = (await apiCall(app.server, 'models:list', {})).find((m) => m.name === 'Legacy shards')!;
    const library = join(app.dataDir, model.path);
    expect(readdirSync(library).filter((f) => /^(model|pytorch_model)[.-]/.test(f))).toEqual(['model.safetensors']); // joined, no index
    expect(addedTokens(library)).toEqual({ '<e1>': 1000, '</e1>': 1001, '<e2>': 1002, '</e2>': 1003, '@GENE$': 1004 });
  });

  it('says a word was added to a vocabulary Benchtop ships, with the caveat, not that its origin is unknown', async () => {
    const { page } = app;
    await importOnScreen(folders.shippedAdded, 'Student plus a word');
    await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toBe('Student plus a word');
    expect(await detailText('model-vocabulary')).toMatch(
      /^Vocabulary: Benchtop's shipped bert-base-uncased vocabulary; plus 1 token added after it, which no record accounts for\. Its vocab\.txt holds 30,522 tokens \(sha256 [0-9a-f]{12}…\)\.$/,
    );
    const caveat = await detailText('model-vocabulary-caveat');
    expect(caveat).toMatch(new RegExp(`^Tokens added to a vocabulary Benchtop ships ${CAVEAT}`));
    expect(caveat).not.toContain('unknown origin');
  });

  for (const [base, trained] of [['Sharded NER', 'From shards'], ['Markers NER', 'From markers']] as const) {
    it(`trains from “${base}” on the demo project, runs it, and its export loads back with the same logits`, async () => {
      const { page } = app;
      const listed = await apiCall(app.server, 'models:list', {});
      const id = listed.find((m) => m.name === base)!.id;
      await page.getByTestId('nav-train').click();
      await page.getByTestId('train-base').selectOption(`model:${id}`);
      const advanced = page.getByTestId('train-batch');
      if (!(await advanced.isVisible())) await page.getByText('Advanced settings').click();
      await advanced.fill('2');
      await page.getByTestId('train-max-steps').fill('4');
      await page.getByTestId('start-training').click();
      // The monitor may still show the previous run: wait for the new model, then for the run.
      const added = async () => (await apiCall(app.server, 'models:list', {})).filter((m) => !listed.some((l) => l.id === m.id));
      await expect.poll(async () => (await added()).length, { timeout: 60_000 }).toBe(1);
      await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('Finished');
      const model = (await added())[0]!;
      const library = join(app.dataDir, model.path);
      await apiCall(app.server, 'models:rename', { modelId: model.id, name: trained });

      // Run it over the project's documents.
      await page.getByTestId('nav-run').click();
      await page.getByTestId('run-model').selectOption(model.id);
      await page.getByTestId('run-source-project').check();
      await page.getByTestId('start-run').click();
      await expect.poll(() => page.getByTestId('run-summary').textContent(), { timeout: 60_000 }).toMatch(/in 5 documents/);

      // Its Models screen entry, and an export through it.
      await page.getByTestId('nav-models').click();
      await page.getByTestId('model-table').getByRole('button', { name: trained, exact: true }).click();
      await expect.poll(() => page.getByTestId('model-detail-name').textContent()).toBe(trained);
      const vocabulary = await detailText('model-vocabulary');
      if (base === 'Markers NER') expect(vocabulary).toMatch(/plus 5 tokens added after it/);
      // Its lineage names the imported base by name and PHI status (no id), and the import.
      const folder = base === 'Markers NER' ? 'markers-ner' : 'sharded-ner';
      expect(await detailText('model-lineage')).toBe(
        `${trained} based on model "${base}" (No patient data) ${trained} fine-tuned on dataset "Demo notes" (synthetic examples shipped with Benchtop) ${base} imported from the folder "${folder}" (inherited)`,
      );
      expect(await detailText('model-vocabulary-caveat')).toContain(CAVEAT);
      await screenshot(page, `imported-trained-${trained.replace(' ', '-')}`);
      const detail = page.getByTestId('model-detail');
      await detail.getByTestId('open-model-export').click();
      const out = join(app.tmp, 'exports', trained.replace(' ', '-'));
      // The Export panel repeats the check-before-sharing caveat.
      expect(await detail.getByTestId('model-export-vocabulary').textContent()).toContain(CAVEAT);
      await detail.getByTestId('model-export-path').fill(out);
      await detail.getByTestId('start-model-export').click();
      await detail.getByTestId('model-export-report').waitFor();
      // The markers and the added word travel with the trained model and its export.
      expect(addedTokens(out)).toEqual(addedTokens(library));
      if (base === 'Markers NER') expect(addedTokens(out)).toEqual({ '<e1>': 1000, '</e1>': 1001, '<e2>': 1002, '</e2>': 1003, '@GENE$': 1004 });
      expect(await forwardLogits(out, `${trained}-export`)).toEqual(await forwardLogits(library, trained));
      const text = join(app.tmp, 'notes.txt');
      writeFileSync(text, 'The <e1> BRCA1 </e1> variant of @GENE$ causes breast cancer in <e2> women </e2>.\n');
      // What `benchtop predict --format jsonl` writes (its task, run in this process), warning of nothing.
      const predicted = async (dir: string, name: string): Promise<string> => {
        const file = join(app.tmp, `${name}.jsonl`);
        const r = await predict({ model: dir, input: text, out: file, format: 'jsonl' });
        expect(r.issues, name).toEqual([]);
        return readFileSync(file, 'utf8');
      };
      expect(await predicted(out, `${trained}-export`)).toBe(await predicted(library, trained));
    });
  }

  it('refuses broken folders on screen, naming the file, and keeps nothing of them', async () => {
    const { page } = app;
    const before = await libraryNames();
    const folders0 = readdirSync(join(app.dataDir, 'models')).sort();
    const cases: [string, RegExp][] = [
      [folders.missingShard, /model-00002-of-00003\.safetensors: is listed in model\.safetensors\.index\.json but missing/],
      [folders.lackingTensor, /model-00001-of-00002\.safetensors: lacks tensor "bert\.encoder\.layer\.9\.output\.dense\.bias"/],
      [folders.pastVocab, /past-vocab\/tokenizer_config\.json: "added_tokens_decoder"\."1000" is an added token with the id 1000, but the model has only 1000 embedding rows \(vocab_size in config\.json\)/],
    ];
    for (const [path, message] of cases) {
      await importOnScreen(path, 'Broken');
      const error = page.getByTestId('model-import').getByTestId('model-import-error');
      await expect.poll(() => error.textContent()).toMatch(message);
      const text = (await error.textContent())!;
      expect(text).toContain(path);
      expect(text).not.toMatch(/\n\s+at |Error:/); // no stack trace
      expect(text).not.toContain('<e1>'); // the entry is named, never the token (it may be a private word)
    }
    // Started from the keyboard, a refused import leaves the keyboard on Import (a button
    // disabled while it checked the folder dropped it to <body>).
    const start = page.getByTestId('start-model-import');
    await start.focus();
    await recordFocus(page);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('model-import-error').textContent()).toContain('past-vocab');
    await expect.poll(() => start.textContent()).toBe('Import');
    expect(await focusLog(page)).toEqual(['start-model-import']);
    await screenshot(page, 'imported-refused');
    // Escape in the form, or Close, gives the keyboard back to the button that opened it.
    const focused = (): Promise<unknown> => page.evaluate(`document.activeElement?.getAttribute('data-testid')`);
    await page.getByTestId('model-path').press('Escape');
    await expect.poll(() => page.getByTestId('model-import').count()).toBe(0);
    await expect.poll(focused).toBe('open-model-import');
    await page.keyboard.press('Enter');
    await page.getByTestId('close-model-import').click();
    await expect.poll(() => page.getByTestId('model-import').count()).toBe(0);
    await expect.poll(focused).toBe('open-model-import');
    expect(await libraryNames()).toEqual(before);
    expect(readdirSync(join(app.dataDir, 'models')).sort()).toEqual(folders0); // no copy, no staging folder left
  });

  it('says a refusal that comes after the import form was closed, instead of keeping it out of sight', async () => {
    const { page } = app;
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const isImport = (url: URL): boolean => decodeURIComponent(url.pathname) === '/api/invoke/models:import-folder';
    // The engine's answer (a refusal) is held until the user has closed the form.
    await page.route(isImport, async (route) => {
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    try {
      await importOnScreen(folders.missingShard, 'Broken');
      await expect.poll(() => page.getByTestId('start-model-import').textContent()).toBe('Checking and copying…');
      await page.getByTestId('close-model-import').click();
      await expect.poll(() => page.getByTestId('model-import').count()).toBe(0);
      release();
      await expect
        .poll(() => page.getByTestId('toast').allTextContents())
        .toContainEqual(expect.stringMatching(/Nothing was imported from .*missing-shard: .*model-00002-of-00003\.safetensors: is listed/));
    } finally {
      await page.unroute(isImport);
    }
  });
});
