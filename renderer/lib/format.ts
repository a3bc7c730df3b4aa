// Display helpers: numbers, sizes, dates and names of statuses, in plain words.
import type { DocumentStatus, PhiStatus } from '../../engine/api/contract.ts';

const NUMBER = new Intl.NumberFormat(undefined);

export function formatNumber(n: number): string {
  return NUMBER.format(n);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function formatParameters(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} K`;
  return String(n);
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const STATUS_LABEL: Record<DocumentStatus, string> = {
  new: 'New',
  'in-progress': 'In progress',
  annotated: 'Annotated',
  reviewed: 'Reviewed',
};

export const PHI_LABEL: Record<PhiStatus, { text: string; tone: 'ok' | 'warn' | 'bad' }> = {
  'no-phi': { text: 'No patient data', tone: 'ok' },
  unknown: { text: 'PHI unknown', tone: 'warn' },
  'distilled-from-phi-teacher': { text: 'Learned from a PHI model', tone: 'bad' },
  'trained-on-phi': { text: 'Trained on patient data', tone: 'bad' },
};
