/**
 * What partners' users type into a charity search, made from the real shipped names: whole names,
 * the first words with the last one still being typed, two distinctive words, and names with a
 * typo; and EINs of the synthetic directory with and without the dash. Deterministic.
 */
import { prng, realIrsRows, syntheticEin } from './charities-synthetic.ts';

export function nameQueries(count: number): string[] {
  const { header, rows } = realIrsRows();
  const at = header.split(',').indexOf('NAME');
  const random = prng(7);
  const queries: string[] = [];
  while (queries.length < count) {
    const name = rows[Math.floor(random() * rows.length)]![at]!;
    const words = name.split(/\s+/).filter((w) => /[A-Za-z]/.test(w));
    if (words.length === 0) continue;
    const kind = random();
    if (kind < 0.4) {
      queries.push(name.toLowerCase());
    } else if (kind < 0.7) {
      // Typing: the first words, the last one cut short.
      const n = Math.min(words.length, 1 + Math.floor(random() * 3));
      const last = words[n - 1]!;
      queries.push([...words.slice(0, n - 1), last.slice(0, Math.max(3, Math.ceil(last.length / 2)))].join(' '));
    } else if (kind < 0.85) {
      queries.push([...words].sort((a, b) => b.length - a.length).slice(0, 2).join(' '));
    } else {
      // One typo: a letter dropped from the longest word.
      const longest = [...words].sort((a, b) => b.length - a.length)[0]!;
      const cut = 1 + Math.floor(random() * Math.max(1, longest.length - 2));
      queries.push(name.replace(longest, longest.slice(0, cut) + longest.slice(cut + 1)));
    }
  }
  return queries;
}

export function einQueries(count: number, rows: number): string[] {
  const random = prng(11);
  return Array.from({ length: count }, (_, i) => {
    const ein = syntheticEin(Math.floor(random() * rows));
    return i % 2 ? `${ein.slice(0, 2)}-${ein.slice(2)}` : ein;
  });
}
