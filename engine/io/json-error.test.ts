// jsonSyntaxDetail keeps the parser's complaint and drops the excerpt of the input.

import { describe, expect, it } from 'vitest';
import { jsonSyntaxDetail } from './json-error.ts';

function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (e) {
    return e;
  }
  throw new Error('expected a syntax error');
}

describe('jsonSyntaxDetail', () => {
  it('never repeats the input', () => {
    for (const text of ['{"name": SECRET_NAME}', '{"input_ids": SECRET_NAME}', `{"a": "${'x'.repeat(40)}", "b": SECRET_NAME}`, '{"a": 1,\n "b": "SECRET_NAME"', '[1, 2 SECRET_NAME]', '{"x": "SECRET_NAME" "y"}']) {
      const detail = jsonSyntaxDetail(parseError(text));
      expect(detail).not.toMatch(/SECRET|NAME/);
      expect(detail.length).toBeGreaterThan(5);
    }
  });
});
