import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WordPieceTokenizer } from '../text/wordpiece.ts';
import { batchMaskSeed, mlmBatch, mlmBlocks, type MlmBlock } from './mlm-data.ts';
import { writeCorpus, writeTinyVocab } from './test-corpus.ts';

const flags = { normalized: false, lstrip: false, rstrip: false, singleWord: false };

/** Blocks of a text where every sentence holds RE markers (added special) and an added word. */
function markedBlocks(): { tok: WordPieceTokenizer; blocks: MlmBlock[]; vocabLength: number } {
  const { dir } = writeCorpus('mlm-added', 1);
  const vocabFile = writeTinyVocab(dir);
  const vocab = readFileSync(vocabFile, 'utf8').trimEnd().split('\n');
  const tok = new WordPieceTokenizer(vocab, {
    addedTokens: [
      { content: '<e1>', special: true, ...flags },
      { content: '</e1>', special: true, ...flags },
      { content: 'colon cancer', special: false, ...flags, normalized: true },
    ],
  });
  const file = path.join(dir, 'marked.txt');
  const para = 'The <e1>gene</e1> causes colon cancer in children and a severe muscle disease. ';
  writeFileSync(file, `${Array.from({ length: 40 }, () => para.repeat(3)).join('\n\n')}\n`);
  const blocks = [...mlmBlocks([file], tok, { maxLength: 32, holdoutEvery: 0, part: 'train', shuffleBuffer: 0, seed: 1 })];
  return { tok, blocks, vocabLength: vocab.length };
}

describe('masked-LM batches with added tokens', () => {
  it('never select added special tokens (HF special_tokens_mask), but do select added words', () => {
    const { tok, blocks, vocabLength } = markedBlocks();
    const markers = new Set([tok.tokenToId('<e1>'), tok.tokenToId('</e1>')]);
    const word = tok.tokenToId('colon cancer');
    expect(word).toBeGreaterThanOrEqual(vocabLength);
    let markerSeen = 0;
    let wordSelected = 0;
    for (let s = 1; s <= 20; s++) {
      const batch = mlmBatch(blocks.slice(0, 16), { tok, wholeWord: false, vocabSize: tok.size }, batchMaskSeed(3, s));
      const ids = batch.inputIds;
      // Selected positions are the gathered ones; their labels are the original ids.
      batch.labels.forEach((l) => {
        expect(markers.has(Number(l))).toBe(false);
        if (Number(l) === word) wordSelected++;
      });
      markerSeen += blocks.slice(0, 16).flatMap((b) => b.ids).filter((id) => markers.has(id)).length;
      // A marker stays in place: every block's markers are still in the batch's input ids.
      blocks.slice(0, 16).forEach((b, r) => {
        b.ids.forEach((id, t) => {
          if (markers.has(id)) expect(Number(ids[r * batch.seqLen + t])).toBe(id);
        });
      });
    }
    expect(markerSeen).toBeGreaterThan(100);
    expect(wordSelected).toBeGreaterThan(0);
  });

  it('draw random replacements from the tokenizer ids (HF len(tokenizer)), not from unused embedding rows', () => {
    const { tok, blocks } = markedBlocks();
    const rows = tok.size + 64; // embeddings padded past the tokenizer (pad_to_multiple_of)
    const drawn = new Set<number>();
    for (let s = 1; s <= 40; s++) {
      const batch = mlmBatch(blocks.slice(0, 16), { tok, wholeWord: false, vocabSize: rows }, batchMaskSeed(5, s));
      const positions = [...(batch.mlmPositions ?? [])].map(Number);
      positions.forEach((p, k) => {
        const id = Number(batch.inputIds[p]);
        if (id !== tok.maskId && id !== Number(batch.labels[k])) drawn.add(id);
      });
    }
    expect(drawn.size).toBeGreaterThan(20);
    expect(Math.max(...drawn)).toBeLessThan(tok.size);
  });

  it('refuses a model with fewer embedding rows than the tokenizer has ids', () => {
    const { tok, blocks } = markedBlocks();
    expect(() => mlmBatch(blocks.slice(0, 2), { tok, wholeWord: false, vocabSize: tok.size - 1 }, 1)).toThrow(
      `the tokenizer gives ${tok.size} ids but the model has ${tok.size - 1} embedding rows`,
    );
  });
});

