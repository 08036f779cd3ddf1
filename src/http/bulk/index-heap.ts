/**
 * A binary min-heap of non-negative integers: the lowest queued index in O(log n), for running
 * `/Bulk` operations in request order as their references resolve (architecture §4b).
 */
export interface IndexHeap {
  /** How many indexes are queued. */
  readonly size: number;
  /** Queues an index (a queued index may be queued again; it is then taken twice). */
  push(index: number): void;
  /** Takes the lowest queued index, or undefined when none is queued. */
  pop(): number | undefined;
}

export function createIndexHeap(): IndexHeap {
  const items: number[] = [];
  // Callers pass positions below items.length only, so every read finds a number.
  const at = (position: number): number => items[position] as number;
  const swap = (a: number, b: number): void => {
    const held = at(a);
    items[a] = at(b);
    items[b] = held;
  };
  return {
    get size() {
      return items.length;
    },
    push: (index) => {
      items.push(index);
      for (let child = items.length - 1; child > 0; ) {
        const parent = (child - 1) >> 1;
        if (at(parent) <= at(child)) break;
        swap(parent, child);
        child = parent;
      }
    },
    pop: () => {
      const top = items[0];
      const last = items.pop();
      if (items.length === 0 || last === undefined) return top;
      items[0] = last;
      for (let parent = 0; ; ) {
        const left = 2 * parent + 1;
        const right = left + 1;
        let least = parent;
        if (left < items.length && at(left) < at(least)) least = left;
        if (right < items.length && at(right) < at(least)) least = right;
        if (least === parent) break;
        swap(least, parent);
        parent = least;
      }
      return top;
    },
  };
}
