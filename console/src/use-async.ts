/** Loads something when its inputs change, keeping the last answer while the next one comes. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Async<T> {
  readonly value: T | undefined;
  readonly error: Error | undefined;
  readonly loading: boolean;
  /** Loads again with the same inputs. */
  reload(): void;
}

export function useAsync<T>(load: () => Promise<T>, inputs: readonly unknown[]): Async<T> {
  const [state, setState] = useState<{ value: T | undefined; error: Error | undefined; loading: boolean }>({
    value: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    latest.current += 1;
    const run = latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (value) => {
        if (run === latest.current) setState({ value, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (run === latest.current) setState((previous) => ({ value: previous.value, error: toError(error), loading: false }));
      },
    );
  }, [...inputs, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}

export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
