/**
 * A binary min-heap of non-negative integers: the lowest queued index in O(log n), for running
 * `/Bulk` operations in request order as their references resolve (DESIGN §4b).
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
  const swap = (a: number, b: number): void => {
    const held = items[a]!;
    items[a] = items[b]!;
    items[b] = held;
  };
  return {
    get size() {
      return items.length;
    },
    push: (index) => {
      items.push(index);
      for (let at = items.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (items[parent]! <= items[at]!) break;
        swap(parent, at);
        at = parent;
      }
    },
    pop: () => {
      const top = items[0];
      const last = items.pop();
      if (items.length === 0 || last === undefined) return top;
      items[0] = last;
      for (let at = 0; ; ) {
        const left = 2 * at + 1;
        const right = left + 1;
        let least = at;
        if (left < items.length && items[left]! < items[least]!) least = left;
        if (right < items.length && items[right]! < items[least]!) least = right;
        if (least === at) break;
        swap(least, at);
        at = least;
      }
      return top;
    },
  };
}
