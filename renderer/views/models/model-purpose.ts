// What a model does, in plain words, for the Models screen: its task name alone
// ("token-classification", "masked-lm") told a first-time user nothing about which model finds
// what, or that the shipped student finds nothing until trained.

/** Tag prefixes of the BIO/BIOES schemes a token classifier's labels carry ("B-Disease"). */
const TAG = /^[BIESLU]-(.+)$/u;

/** The entity types a token classifier's labels name, in their order, each once. */
export function entityTypesOf(labels: readonly string[]): string[] {
  const types: string[] = [];
  for (const label of labels) {
    const type = TAG.exec(label)?.[1] ?? (label === 'O' ? null : label);
    if (type !== null && !types.includes(type)) types.push(type);
  }
  return types;
}

export function modelPurpose(task: string, labels: readonly string[]): string {
  if (task === 'token-classification') {
    const types = entityTypesOf(labels);
    return types.length > 0 ? `Finds ${types.join(', ')}` : 'Finds entities';
  }
  if (task === 'sequence-classification') return 'Finds relations between entities';
  if (task === 'masked-lm') return 'A starting point to train from; finds nothing by itself';
  return task;
}
