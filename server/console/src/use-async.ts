/** Loads something when its inputs change, keeping the last answer while the next one comes. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Async<T> {
  readonly value: T | undefined;
  readonly error: Error | undefined;
  /**
   * True from the render where the inputs change until their answer arrives: `value` is then the
   * previous inputs' answer, and must not be labelled as the new one's (page 1 showing page 2's rows).
   */
  readonly loading: boolean;
  /** Loads again with the same inputs. */
  reload(): void;
}

interface Settled<T> {
  readonly value: T | undefined;
  readonly error: Error | undefined;
  /** The inputs (and reload count) this answer is for. */
  readonly inputs: readonly unknown[] | undefined;
}

const same = (a: readonly unknown[] | undefined, b: readonly unknown[]): boolean =>
  a !== undefined && a.length === b.length && a.every((item, index) => Object.is(item, b[index]));

export function useAsync<T>(load: () => Promise<T>, inputs: readonly unknown[]): Async<T> {
  const [tick, setTick] = useState(0);
  const [settled, setSettled] = useState<Settled<T>>({ value: undefined, error: undefined, inputs: undefined });
  const latest = useRef(0);
  const current = [...inputs, tick];
  useEffect(() => {
    latest.current += 1;
    const run = latest.current;
    load().then(
      (value) => {
        if (run === latest.current) setSettled({ value, error: undefined, inputs: current });
      },
      (error: unknown) => {
        if (run === latest.current) setSettled((previous) => ({ value: previous.value, error: toError(error), inputs: current }));
      },
    );
  }, current);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { value: settled.value, error: settled.error, loading: !same(settled.inputs, current), reload };
}

export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
