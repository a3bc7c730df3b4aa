// Training and distillation runs of the open project: the list, the selected run's loss and dev
// F1 curves (loaded from the store, then extended live from train:* events), and the actions
// start, cancel and resume. Shared by the Train and Distill screens.
import type {
  DistillStartArgs,
  MetricPointInfo,
  RunInfo,
  TrainLabellingInfo,
  TrainProgressInfo,
  TrainStartArgs,
} from '../../../engine/api/contract.ts';
import { call, messageOf, on } from '../api.ts';
import { app } from './app.svelte.ts';
import { toasts } from './toasts.svelte.ts';

/** Points of `a`, then those of `b` past its last step. */
function merge(a: readonly MetricPointInfo[], b: readonly MetricPointInfo[]): MetricPointInfo[] {
  const last = a.at(-1)?.step ?? -1;
  return [...a, ...b.filter((p) => p.step > last)];
}

class Runs {
  list = $state.raw<RunInfo[]>([]);
  selectedId = $state<string | null>(null);
  loss = $state.raw<MetricPointInfo[]>([]);
  devF1 = $state.raw<MetricPointInfo[]>([]);
  progress = $state.raw<TrainProgressInfo | null>(null);
  /** How much of its transfer text the selected distillation's teacher has labelled (before its steps). */
  labelling = $state.raw<TrainLabellingInfo | null>(null);
  /** Planned optimisation steps of the selected run (null until known). */
  totalSteps = $state<number | null>(null);
  isLoading = $state(true);
  error = $state<string | null>(null);
  actionError = $state<string | null>(null);
  /** The run asked to stop, until it has (it finishes its step and saves a checkpoint first). */
  stoppingId = $state<string | null>(null);
  /**
   * The run whose Continue was pressed, until the engine has taken it up: a distillation checks
   * its transfer text again first (up to a minute for a large corpus), and nothing showed it.
   */
  resumingId = $state<string | null>(null);

  selected = $derived(this.list.find((r) => r.id === this.selectedId) ?? null);
  isSelectedActive = $derived(
    this.selected?.status === 'running' || this.selected?.status === 'queued',
  );

  constructor() {
    on('train:progress', (p) => {
      if (p.runId !== this.selectedId) return;
      this.progress = p;
      this.totalSteps = p.totalSteps;
      this.loss = merge(this.loss, [{ step: p.step, epoch: p.epoch, value: p.loss }]);
    });
    on('train:labelling', (l) => {
      if (l.runId === this.selectedId) this.labelling = l;
    });
    on('train:eval', (e) => {
      if (e.runId !== this.selectedId) return;
      this.devF1 = merge(this.devF1, [{ step: e.step, epoch: e.epoch, value: e.devF1 }]);
    });
    on('train:finished', (f) => {
      if (f.runId === this.stoppingId) this.stoppingId = null;
      const isDistill = this.list.find((r) => r.id === f.runId)?.kind === 'distill';
      if (f.status === 'completed')
        toasts.show(
          'success',
          isDistill
            ? 'Distillation finished; the student is in the Models library.'
            : 'Training finished; the model is in the Models library.',
        );
      else if (f.status === 'failed')
        toasts.show('error', `A ${isDistill ? 'distillation' : 'training'} run stopped with an error.`);
      void this.refresh();
    });
    on('workspace:changed', (c) => {
      if (c.what === 'runs' && c.projectId === app.projectId) void this.refresh();
    });
    // A restarted engine marks the runs its predecessor left running as interrupted (they
    // resume from their last checkpoint): show that instead of a run that never moves again.
    on('engine:ready', () => {
      this.stoppingId = null;
      this.progress = null;
      void this.refresh();
    });
  }

  /** Reloads the project's runs; selects the newest when nothing is selected. */
  async refresh(): Promise<void> {
    if (app.projectId === null) {
      this.list = [];
      this.isLoading = false;
      return;
    }
    try {
      this.list = await call('train:list-runs', { projectId: app.projectId });
      this.error = null;
      if (this.selected === null) await this.select(this.list[0]?.id ?? null);
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.isLoading = false;
    }
  }

  /** Shows a run: its stored curves, then live points as they arrive. */
  async select(id: string | null): Promise<void> {
    if (id !== this.selectedId) {
      this.selectedId = id;
      this.loss = [];
      this.devF1 = [];
      this.progress = null;
      this.labelling = null;
      this.totalSteps = null;
    }
    if (id === null) return;
    this.progress = this.list.find((r) => r.id === id)?.progress ?? this.progress;
    try {
      const m = await call('train:get-metrics', { runId: id });
      if (this.selectedId !== id) return;
      this.loss = merge(m.loss, this.loss);
      this.devF1 = merge(m.devF1, this.devF1);
      this.totalSteps = m.totalSteps ?? this.totalSteps;
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  /** Starts a training run and shows it. */
  async start(args: TrainStartArgs): Promise<{ runId: string } | null> {
    return this.#launch(() => call('train:start', args));
  }

  /** Starts a distillation run and shows it; the reply's `note` is for the screen to show. */
  async distill(args: DistillStartArgs): Promise<{ runId: string; note?: string } | null> {
    return this.#launch(() => call('distill:start', args));
  }

  async cancel(runId: string): Promise<void> {
    this.stoppingId = runId;
    await this.#act(() => call('train:cancel', { runId }));
  }

  async resume(runId: string): Promise<void> {
    // Start again (no checkpoint) runs it anew from step 1; the engine drops its earlier curves.
    const run = this.list.find((r) => r.id === runId);
    const isRestart = run !== undefined && run.canRestart && !run.canResume;
    if (this.resumingId === runId) return;
    this.resumingId = runId;
    try {
      await this.#resume(runId, run, isRestart);
    } finally {
      if (this.resumingId === runId) this.resumingId = null;
    }
    await this.select(runId);
  }

  async #resume(runId: string, run: RunInfo | undefined, isRestart: boolean): Promise<void> {
    await this.#act(async () => {
      await call('train:resume', { runId });
      // Until its first step the run is preparing: its last session's step, speed and time left
      // (kept since it stopped) would show frozen meanwhile, as if it were under way.
      if (runId === this.selectedId) {
        this.progress = null;
        this.labelling = null;
        if (isRestart) {
          this.loss = [];
          this.devF1 = [];
          this.totalSteps = null;
        } else if (run?.checkpointStep !== undefined) {
          // Continued from its checkpoint: the points past it (a run killed between checkpoints)
          // are taken again; kept here, they stood on the chart until the new ones passed them.
          const at = run.checkpointStep;
          this.loss = this.loss.filter((x) => x.step <= at);
          this.devF1 = this.devF1.filter((x) => x.step <= at);
        }
      }
    });
  }

  /**
   * Removes a run that is not in progress from the list, with its curves and what it kept; the
   * model it made stays in the library. The first run left is shown instead.
   */
  async remove(runId: string): Promise<void> {
    await this.#act(() => call('train:remove', { runId }));
  }

  /** Removes a stopped run's copy of the documents and its checkpoint (it cannot continue after). */
  async discard(runId: string): Promise<void> {
    await this.#act(() => call('train:discard', { runId }));
  }

  async #launch<R extends { runId: string }>(start: () => Promise<R>): Promise<R | null> {
    this.actionError = null;
    try {
      const reply = await start();
      await this.refresh();
      await this.select(reply.runId);
      return reply;
    } catch (err) {
      this.actionError = messageOf(err);
      return null;
    }
  }

  async #act(action: () => Promise<unknown>): Promise<void> {
    this.actionError = null;
    try {
      await action();
      await this.refresh();
    } catch (err) {
      this.actionError = messageOf(err);
    }
  }
}

export const runs = new Runs();
