import { getMetadataStorage, type MetadataStorage } from 'class-validator';

type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];
type Lookup = MetadataStorage['getTargetValidationMetadatas'];
type Grouped = ReturnType<MetadataStorage['groupByPropertyName']>;

const CACHED = Symbol.for('svc.validation-metadata-cache');

/**
 * Makes class-validator's metadata lookups cost a map read. For every object it validates, class-validator
 * recomputes the checks of the object's class from its global metadata storage: a scan over every decorated class
 * (about 150 here) and a regrouping by property, about 5 µs per object — most of a tool call's validation
 * (BENCHMARKS.md "MCP", "One definition per input"). The answers only change when a decorator registers new
 * metadata, so they are memoized per class and options, and the memo is dropped whenever metadata is added.
 * Validation itself stays class-validator's. Idempotent; the tool registry and the REST pipe call it at boot.
 */
export function cacheValidationMetadata(): void {
  const storage = getMetadataStorage() as MetadataStorage & { [CACHED]?: true };
  if (storage[CACHED]) return;
  storage[CACHED] = true;

  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let lookups = new Map<Parameters<Lookup>[0], Map<string, ValidationMetadata[]>>();
  let groups = new WeakMap<ValidationMetadata[], Grouped>();

  storage.addValidationMetadata = (metadata: ValidationMetadata): void => {
    add(metadata);
    lookups = new Map();
    groups = new WeakMap();
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groupNames) => {
    const key = `${schema}|${always}|${strictGroups}|${groupNames?.join(',') ?? ''}`;
    let byOptions = lookups.get(target);
    if (!byOptions) lookups.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groupNames)));
    return found;
  };
  storage.groupByPropertyName = (metadata: ValidationMetadata[]): Grouped => {
    let found = groups.get(metadata);
    if (!found) groups.set(metadata, (found = group(metadata)));
    return found;
  };
}
