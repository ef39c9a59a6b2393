/** A map that keeps its `max` most recently used keys and forgets the others (Map keeps insertion order). */
export class Recent<V> {
  readonly #map = new Map<string, V>();
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The value, now the most recently used. */
  get(key: string): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  delete(key: string): void {
    this.#map.delete(key);
  }

  /** Sets the key's value; returns the key that made room for it, if one had to. */
  set(key: string, value: V): string | undefined {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size <= this.max) return undefined;
    const oldest = this.#map.keys().next().value!;
    this.#map.delete(oldest);
    return oldest;
  }
}
