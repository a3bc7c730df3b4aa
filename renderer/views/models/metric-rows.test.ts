import { describe, expect, it } from 'vitest';
import { metricRows, scoresNote } from './metric-rows.ts';

describe("a model's metrics", () => {
  it('name a trained model’s scores and give them in %, as its run and Evaluate do', () => {
    expect(metricRows({ dev_precision: 0.0889, dev_recall: 0.1176, dev_f1: 0.10126, test_f1: 0, steps: 1800 })).toEqual([
      { label: 'Precision on held-out documents', value: '8.9 %' },
      { label: 'Recall on held-out documents', value: '11.8 %' },
      { label: 'F1 on held-out documents', value: '10.1 %' },
      { label: 'F1 on test documents', value: '0.0 %' },
      { label: 'Training steps', value: '1,800' },
    ]);
  });

  it('show other keys as they are (a shipped model’s own record)', () => {
    expect(metricRows({ mlm_eval_loss: 6.384859, text_files: 3 })).toEqual([
      { label: 'mlm_eval_loss', value: '6.3849' },
      { label: 'text_files', value: '3' },
    ]);
  });

  it('say what the scores are under Metrics, only when it shows them', () => {
    expect(scoresNote({ dev_f1: 0.5, steps: 10 })).toBe(
      'Scored on held-out documents, which it did not learn from. Precision: how much of what it marks is ' +
        'right; recall: how much of what is annotated it finds; F1 balances the two. 100 % is perfect.',
    );
    expect(scoresNote({ dev_f1: 0.5, test_recall: 0.2 })).toMatch(/^Scored on held-out documents and test documents,/);
    expect(scoresNote({ mlm_eval_loss: 6.3, steps: 10 })).toBeNull();
  });
});
