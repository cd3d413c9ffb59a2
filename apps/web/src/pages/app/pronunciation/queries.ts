import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  addRules,
  createFromFile,
  createFromRules,
  fetchDictionary,
  fetchVersions,
  listDictionaries,
  removeRules,
  updateDictionary,
  type Rule,
} from '../../../speech/pronunciation';

/** Every query of this page starts with this key: a change refetches them all (list, rules, versions). */
export const PRONUNCIATION_KEY = 'pronunciation-dictionaries';

export function useDictionaries(includeArchived = false) {
  return useQuery({
    queryKey: [PRONUNCIATION_KEY, 'list', includeArchived],
    queryFn: ({ signal }) => listDictionaries(includeArchived, signal),
  });
}

export function useDictionary(id: string | null) {
  return useQuery({
    queryKey: [PRONUNCIATION_KEY, 'one', id],
    queryFn: ({ signal }) => fetchDictionary(id!, signal),
    enabled: !!id,
    retry: false,
  });
}

export function useVersions(id: string | null) {
  return useQuery({
    queryKey: [PRONUNCIATION_KEY, 'versions', id],
    queryFn: ({ signal }) => fetchVersions(id!, signal),
    enabled: !!id,
    retry: false,
  });
}

/** A change to dictionaries, then everything this page shows of them again. */
function useChange<A, R>(fn: (args: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => client.invalidateQueries({ queryKey: [PRONUNCIATION_KEY] }),
  });
}

export const useCreate = () =>
  useChange((a: { name: string } & ({ rules: Rule[] } | { file: File })) =>
    'file' in a ? createFromFile(a.name, a.file) : createFromRules(a.name, a.rules),
  );
export const useAddRule = (id: string) => useChange((rule: Rule) => addRules(id, [rule]));
export const useRemoveRule = (id: string) => useChange((word: string) => removeRules(id, [word]));
export const useUpdate = (id: string) =>
  useChange((changes: { archived?: boolean; default?: boolean }) => updateDictionary(id, changes));
