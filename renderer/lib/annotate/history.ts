// Undo/redo stacks of edit batches with their exact inverses.
import type { AnnotationEdit } from '../../../engine/api/contract.ts';

export interface Step {
  label: string;
  edits: AnnotationEdit[];
  inverse: AnnotationEdit[];
}

export class History {
  #undo: Step[] = [];
  #redo: Step[] = [];
  readonly #limit: number;

  constructor(limit = 500) {
    this.#limit = limit;
  }

  get canUndo(): boolean {
    return this.#undo.length > 0;
  }

  get canRedo(): boolean {
    return this.#redo.length > 0;
  }

  /** Records a new step; clears the redo stack. */
  push(step: Step): void {
    this.#undo.push(step);
    if (this.#undo.length > this.#limit) this.#undo.shift();
    this.#redo = [];
  }

  /** The step to undo (moved to the redo stack), or undefined. */
  undo(): Step | undefined {
    const step = this.#undo.pop();
    if (step) this.#redo.push(step);
    return step;
  }

  /** The step to redo (moved back to the undo stack), or undefined. */
  redo(): Step | undefined {
    const step = this.#redo.pop();
    if (step) this.#undo.push(step);
    return step;
  }

  clear(): void {
    this.#undo = [];
    this.#redo = [];
  }
}
