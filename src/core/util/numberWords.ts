// English number words, one list for the places that read or write them: near-duplicate prompts
// read "one" as 1, and the audit writes "seventy-two" for 72.

/** The words for 0 to 19, at their own index. */
export const NUMBER_WORDS_TO_19: readonly string[] = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];

/** The words for the tens, at the index of their digit (empty for 0 and 1). */
export const TENS_WORDS: readonly string[] = [
  '',
  '',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'sixty',
  'seventy',
  'eighty',
  'ninety',
];
