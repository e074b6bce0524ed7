/*
 * Syllables of an English word, for IFBench's `words:odd_even_syllables`. IFBench calls the
 * syllapy package: a dictionary of counts for common words, and vowel-group rules for the rest.
 * vtask has the rules (vowel groups, silent final e, -le, -ed/-es endings, a few diphthong
 * corrections) but not the dictionary, so rare words may count one syllable off (DIFFERENCES.md).
 */
const SPECIAL: Readonly<Record<string, number>> = {
  the: 1,
  every: 3,
  business: 2,
  different: 3,
  family: 3,
  evening: 2,
  interesting: 3,
  people: 2,
  area: 3,
  idea: 3,
  being: 2,
  science: 2,
  quiet: 2,
  poem: 2,
  create: 2,
  created: 3,
  real: 1,
  really: 2,
  naive: 2,
  fire: 1,
  hour: 1,
  our: 1,
  flour: 1,
  chocolate: 3,
  camera: 3,
  several: 3,
  vegetable: 4,
  favorite: 3,
  average: 3,
  general: 3,
  beautiful: 3,
  literature: 4,
  temperature: 4,
};

export function syllableCount(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w === '') return 0;
  const special = SPECIAL[w];
  if (special !== undefined) return special;
  if (w.length <= 3) return 1;
  let count = (w.match(/[aeiouy]+/g) ?? []).length;
  if (w.endsWith('e') && !w.endsWith('le') && !w.endsWith('ee') && !w.endsWith('ye') && count > 1) count--;
  if (/[^aeiouy]le$/.test(w) && count === 0) count++;
  if (/(?:[^aeiouytd])ed$/.test(w) && count > 1) count--;
  if (/(?:[^aeiouysxzgc]|[^aeiou]h)es$/.test(w) && !/[cs]hes$/.test(w) && count > 1) count--;
  if (/(?:ia|io|ua|eo|iu|ie(?=r|t))/.test(w)) count += (w.match(/(?:ia|io|ua|iu)/g) ?? []).length;
  return Math.max(1, count);
}
