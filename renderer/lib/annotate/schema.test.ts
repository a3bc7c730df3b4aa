// The label-schema hint for a relation refused by its direction, on the demo project's own types.
import { describe, expect, it } from 'vitest';
import type { LabelSchema } from '../../../engine/api/contract.ts';
import { noRelationHint } from './schema.ts';

const rel = (name: string, arg1Types: string[], arg2Types: string[]) => ({ name, arg1Types, arg2Types, color: '#888888', symmetric: false });
const schema = (relationTypes: LabelSchema['relationTypes']): LabelSchema =>
  ({ entityTypes: [], relationTypes });

describe('noRelationHint', () => {
  it('names every type that goes the other way, quoted, in a sentence', () => {
    const s = schema([rel('causes', ['Chemical'], ['Disease']), rel('treats', ['Chemical'], ['Disease'])]);
    expect(noRelationHint(s, 'Disease', 'Chemical')).toBe(
      'No relation type allows Disease → Chemical. The types “causes” and “treats” go Chemical → Disease: press Esc, select the Chemical and press R to start from it.',
    );
  });
  it('says to pick another target or add a type when none goes either way', () => {
    const s = schema([rel('treats', ['Chemical'], ['Disease'])]);
    expect(noRelationHint(s, 'Gene', 'Disease')).toBe(
      "No relation type allows Gene → Disease. Pick another target, or add a relation type in the project's label schema.",
    );
  });
});
