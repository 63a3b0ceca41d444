import { getMetadataStorage, type MetadataStorage } from 'class-validator';

type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];
type Grouped = ReturnType<MetadataStorage['groupByPropertyName']>;

type Lookup = (
  targetConstructor: Function,
  targetSchema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => ValidationMetadata[];

let installed = false;

/**
 * Remembers class-validator's metadata lookup per DTO class. To find the rules a class inherits,
 * `getTargetValidationMetadatas` tests the class against every class with validation metadata in the
 * process, on every validated object: with this API's hundreds of DTOs that scan was 3 % of a small
 * POST (issue 10 item 14). The answer only changes when metadata is added (a class is declared), so
 * any addition empties the memo. The validator only reads the lists and groups it is given.
 */
export function memoizeValidationMetadata(): void {
  if (installed) return;
  installed = true;
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas: Lookup;
    addValidationMetadata: (metadata: ValidationMetadata) => void;
    groupByPropertyName: (metadata: ValidationMetadata[]) => Grouped;
  };
  const lookup = storage.getTargetValidationMetadatas.bind(storage) as Lookup;
  const add = storage.addValidationMetadata.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  // The validator groups the (memoized) list by property right after each lookup: same list, same groups.
  const grouped = new WeakMap<ValidationMetadata[], Grouped>();
  storage.groupByPropertyName = (metadatas) => {
    let groups = grouped.get(metadatas);
    if (!groups) grouped.set(metadatas, (groups = group(metadatas)));
    return groups;
  };
  let memo = new WeakMap<Function, Map<string, ValidationMetadata[]>>();
  storage.addValidationMetadata = (metadata) => {
    memo = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let byOptions = memo.get(targetConstructor);
    if (!byOptions) memo.set(targetConstructor, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (!metadatas) {
      metadatas = lookup(targetConstructor, targetSchema, always, strictGroups, groups);
      byOptions.set(key, metadatas);
    }
    return metadatas;
  };
}
