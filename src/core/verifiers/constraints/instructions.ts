import * as z from 'zod';
import type { InstructionDef, InstructionSource, KwargDef } from './instruction';

/*
 * The registry of constraint instruction ids: IFEval's 25, the 58 that IFBench adds, the 29
 * that open-instruct's IFEvalG adds, and vtask's own. Validation, completion and hover all
 * read these definitions, so the schemas here are the contract for a task file's kwargs.
 *
 * Required or optional: the peers give every kwarg a Python default of None and then draw a
 * random value (or raise) when it is missing, so a missing kwarg never means "no constraint"
 * there. A random draw is never what a dataset author wants, so vtask makes every kwarg
 * required. The one exception is open-instruct's `instruction` kwarg of
 * `keywords:exclude_word_harder`, which the peer reads only to draw a random keyword when
 * `keyword` is missing; since `keyword` is required here it has no effect, and it is accepted
 * as optional only so that imported rows that carry it still validate.
 *
 * Counts are integers. Where zero would make the instruction vacuous ("at least 0") or
 * impossible ("less than 0"), the minimum is 1; where zero is a meaningful exact count
 * ("exactly 0 bullet points"), it is 0. Constraints between two kwargs of one instruction
 * cannot live in a per-kwarg schema, so `kwargConflicts` below reports those.
 */

/** The two comparisons IFEval supports: `less than` is strict, `at least` is inclusive. */
const RELATION = z.enum(['less than', 'at least']);

/** A non-negative integer, or a positive one when `min` is 1; `max` bounds it when given. */
function int(min: 0 | 1, max?: number): z.ZodType {
  const s = z.number().int().min(min);
  return max === undefined ? s : s.max(max);
}

/** A percentage from 0 to 100; fractions are allowed because the peers compare as numbers. */
const PERCENT = z.number().min(0).max(100);

// Text kwargs must say something: an empty keyword would match everywhere, and an empty
// phrase to repeat would be satisfied by any response.
const TEXT = z.string().refine((s) => s.trim().length > 0, 'must not be empty');

// Several instructions compare one word of the response with a kwarg, so a value with a space
// inside could never match; rejecting it catches the mistake in the file.
const WORD = z
  .string()
  .refine((s) => s.trim().length > 0, 'must not be empty')
  .refine((s) => !/\s/u.test(s.trim()), 'must be a single word');

const TEXT_LIST = z.array(TEXT).min(1);

// IFEval counts one character of the lowercased response. Its evaluation prompts also ask for
// `#` and `!`, which IFEval would silently swap for a random letter; vtask counts the character
// as written instead, so any single non-space character is accepted.
const ONE_CHAR = z.string().regex(/^\S$/u, 'must be exactly one character');

const ONE_LETTER = z.string().regex(/^\p{L}$/u, 'must be exactly one letter');

// All current ISO 639-1 codes. Checking membership (rather than "two lowercase letters")
// catches the common slips `jp` for Japanese and `cn` for Chinese before any sample is run.
const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy ' +
    'da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht ' +
    'hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky ' +
    'la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny ' +
    'oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss ' +
    'st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo ' +
    'za zh zu'
  ).split(' '),
);

const LANGUAGE = z
  .string()
  .regex(/^[a-z]{2}$/, 'must be a two-letter lowercase ISO 639-1 code such as `en`')
  .refine((code) => ISO_639_1.has(code), 'is not an ISO 639-1 language code (Japanese is `ja`, Chinese `zh`)');

function kw(schema: z.ZodType, doc: string, example: unknown, required = true): KwargDef {
  return { schema, doc, required, example };
}

function def(
  id: string,
  source: InstructionSource,
  summary: string,
  kwargs: Record<string, KwargDef> = {},
): InstructionDef {
  return { id, source, summary, kwargs };
}

// Kwargs that several instructions share, with the same meaning each time.
const relationKw = (what: string): KwargDef =>
  kw(RELATION, `\`less than\` (strictly fewer) or \`at least\` (that many or more) ${what}.`, 'at least');
const promptToRepeatKw = (how: string): KwargDef =>
  kw(
    TEXT,
    `The request the model must copy, ${how}. Write it out in full; vtask does not take it from the prompt.`,
    'Write a short poem about the sea.',
  );

const IFEVAL: readonly InstructionDef[] = [
  def('keywords:existence', 'ifeval', 'Every one of `keywords` appears in the response (case-insensitive).', {
    keywords: kw(TEXT_LIST, 'The words or phrases that must each appear at least once.', ['river', 'bridge']),
  }),
  def('keywords:frequency', 'ifeval', '`keyword` occurs fewer than / at least `frequency` times (case-insensitive).', {
    keyword: kw(TEXT, 'The word or phrase to count; surrounding spaces are ignored.', 'innovation'),
    frequency: kw(int(1), 'The threshold for the number of occurrences.', 3),
    relation: relationKw('occurrences'),
  }),
  def('keywords:forbidden_words', 'ifeval', 'None of `forbidden_words` appears as a whole word (case-insensitive).', {
    forbidden_words: kw(
      TEXT_LIST,
      'The words the response must not use. Required: IFEval would draw random words when it is missing.',
      ['very', 'really'],
    ),
  }),
  def(
    'keywords:letter_frequency',
    'ifeval',
    '`letter` occurs fewer than / at least `let_frequency` times (case-insensitive).',
    {
      letter: kw(
        ONE_CHAR,
        'The character to count, case-insensitively; usually a letter. IFEval swaps a non-letter such as `#` for a random letter, vtask counts it as written.',
        'e',
      ),
      let_frequency: kw(int(1), 'The threshold for the number of occurrences of `letter`.', 10),
      let_relation: relationKw('occurrences'),
    },
  ),
  def('language:response_language', 'ifeval', 'The whole response is detected as written in `language`.', {
    language: kw(
      LANGUAGE,
      'An ISO 639-1 code. IFEval uses en, es, pt, ar, hi, fr, ru, de, ja, it, bn, uk, th, ur, ta, te, bg, ko, pl, he, fa, vi, ne, sw, kn, mr, gu, pa, ml and fi.',
      'fr',
    ),
  }),
  def(
    'length_constraints:number_sentences',
    'ifeval',
    'The response has fewer than / at least `num_sentences` sentences.',
    {
      num_sentences: kw(int(1), 'The threshold for the number of sentences.', 5),
      relation: relationKw('sentences'),
    },
  ),
  def(
    'length_constraints:number_paragraphs',
    'ifeval',
    'The response has exactly `num_paragraphs` paragraphs, separated by the markdown divider `***`.',
    {
      num_paragraphs: kw(int(1), 'The exact number of paragraphs.', 3),
    },
  ),
  def('length_constraints:number_words', 'ifeval', 'The response has fewer than / at least `num_words` words.', {
    num_words: kw(int(1), 'The threshold for the number of words.', 300),
    relation: relationKw('words'),
  }),
  def(
    'length_constraints:nth_paragraph_first_word',
    'ifeval',
    'The response has exactly `num_paragraphs` paragraphs separated by blank lines, and paragraph `nth_paragraph` starts with `first_word`.',
    {
      num_paragraphs: kw(int(1), 'The exact number of paragraphs, separated by blank lines.', 3),
      nth_paragraph: kw(
        int(1),
        'Which paragraph (from 1, at most `num_paragraphs`) must start with `first_word`. Required: IFEval would pick one at random.',
        2,
      ),
      first_word: kw(
        WORD,
        'The single word that paragraph must start with (case-insensitive, quotes and punctuation ignored).',
        'however',
      ),
    },
  ),
  def(
    'detectable_content:number_placeholders',
    'ifeval',
    'The response has at least `num_placeholders` placeholders in square brackets, such as `[address]`.',
    {
      num_placeholders: kw(int(1), 'The minimum number of `[placeholder]`s.', 2),
    },
  ),
  def(
    'detectable_content:postscript',
    'ifeval',
    'The response contains a postscript that starts with `postscript_marker`.',
    {
      postscript_marker: kw(TEXT, 'The marker that opens the postscript, such as `P.S.` or `P.P.S`.', 'P.S.'),
    },
  ),
  def(
    'detectable_format:number_bullet_lists',
    'ifeval',
    'The response has exactly `num_bullets` markdown bullet points (lines starting with `*` or `-`).',
    {
      num_bullets: kw(int(0), 'The exact number of bullet points; 0 forbids bullet points.', 3),
    },
  ),
  def(
    'detectable_format:constrained_response',
    'ifeval',
    'The response contains "My answer is yes.", "My answer is no." or "My answer is maybe.".',
  ),
  def(
    'detectable_format:number_highlighted_sections',
    'ifeval',
    'At least `num_highlights` sections are highlighted with markdown, such as `*highlighted section*`.',
    {
      num_highlights: kw(int(1), 'The minimum number of highlighted sections.', 2),
    },
  ),
  def(
    'detectable_format:multiple_sections',
    'ifeval',
    'The response has at least `num_sections` sections, each opened by `section_spliter` and its number (such as `SECTION 1`).',
    {
      section_spliter: kw(
        TEXT,
        "The word that opens each section, followed by the section number, such as `SECTION` or `Section`. The spelling of the key is IFEval's.",
        'SECTION',
      ),
      num_sections: kw(int(1), 'The minimum number of sections.', 3),
    },
  ),
  def(
    'detectable_format:json_format',
    'ifeval',
    'The whole response is valid JSON (a markdown code fence around it is allowed).',
  ),
  def(
    'detectable_format:title',
    'ifeval',
    'The response contains a non-empty title in double angle brackets, such as `<<poem of joy>>`.',
  ),
  def(
    'combination:two_responses',
    'ifeval',
    'The response is two different answers separated by six asterisks (`******`).',
  ),
  def(
    'combination:repeat_prompt',
    'ifeval',
    'The response starts with `prompt_to_repeat`, word for word (case-insensitive).',
    {
      prompt_to_repeat: promptToRepeatKw('without the sentence that asks for the repetition'),
    },
  ),
  def(
    'startend:end_checker',
    'ifeval',
    'The response ends with `end_phrase`, with nothing after it (case-insensitive).',
    {
      end_phrase: kw(TEXT, 'The exact phrase the response must end with.', 'Is there anything else I can help with?'),
    },
  ),
  def(
    'change_case:capital_word_frequency',
    'ifeval',
    'Fewer than / at least `capital_frequency` words are written in all capitals.',
    {
      capital_frequency: kw(
        int(1),
        'The threshold for the number of all-capital words. Required: IFEval would draw a random number when it is missing.',
        5,
      ),
      capital_relation: relationKw('all-capital words; required, as IFEval would pick one at random'),
    },
  ),
  def('change_case:english_capital', 'ifeval', 'The response is in English and entirely in capital letters.'),
  def('change_case:english_lowercase', 'ifeval', 'The response is in English and entirely in lowercase letters.'),
  def('punctuation:no_comma', 'ifeval', 'The response contains no commas.'),
  def('startend:quotation', 'ifeval', 'The whole response is wrapped in double quotation marks.'),
];

const IFBENCH: readonly InstructionDef[] = [
  def(
    'count:word_count_range',
    'ifbench',
    'The response has between `min_words` and `max_words` words, both included.',
    {
      min_words: kw(int(0), 'The smallest allowed number of words.', 100),
      max_words: kw(int(0), 'The largest allowed number of words; at least `min_words`.', 150),
    },
  ),
  def(
    'count:unique_word_count',
    'ifbench',
    'The response uses at least `N` distinct words (case-insensitive, surrounding punctuation ignored).',
    {
      N: kw(int(1), 'The minimum number of distinct words.', 50),
    },
  ),
  def(
    'ratio:stop_words',
    'ifbench',
    'Stop words make up at most `percentage`% of the words (an empty response fails).',
    {
      percentage: kw(PERCENT, 'The largest allowed share of stop words, from 0 to 100.', 40),
    },
  ),
  def(
    'ratio:sentence_type',
    'ifbench',
    'There are exactly twice as many declarative sentences (ending in `.`) as questions (ending in `?`).',
  ),
  def(
    'ratio:sentence_balance',
    'ifbench',
    'Declarative (`.`), interrogative (`?`) and exclamatory (`!`) sentences occur equally often.',
  ),
  def(
    'count:conjunctions',
    'ifbench',
    'At least `small_n` different coordinating conjunctions (and, but, for, nor, or, so, yet) are used.',
    {
      small_n: kw(int(1, 7), 'The minimum number of different conjunctions, from 1 to 7 (there are only seven).', 3),
    },
  ),
  def(
    'count:person_names',
    'ifbench',
    "At least `N` different first names from IFBench's list of 50 (Emma, Liam, Sophia, Jackson, ...) are mentioned.",
    {
      N: kw(int(1, 50), 'The minimum number of different names, from 1 to 50 (the size of the list).', 3),
    },
  ),
  def(
    'ratio:overlap',
    'ifbench',
    "The share of the response's distinct character trigrams (three characters in a row, as IFBench counts them) that also occur in `reference_text` is within 2 points of `percentage`%.",
    {
      reference_text: kw(
        TEXT,
        'The text whose trigrams the response should reuse.',
        'The quick brown fox jumps over the lazy dog.',
      ),
      percentage: kw(PERCENT, 'The target overlap from 0 to 100; anything within 2 points of it passes.', 50),
    },
  ),
  def(
    'count:numbers',
    'ifbench',
    'The response contains exactly `N` numbers (punctuation inside a number is ignored, so `3.14` and `100,000` count once).',
    {
      N: kw(int(0), 'The exact number of numbers; 0 forbids numbers.', 4),
    },
  ),
  def(
    'words:alphabet',
    'ifbench',
    "Each word starts with the letter after the previous word's first letter, wrapping from Z to A.",
  ),
  def(
    'words:vowel',
    'ifbench',
    'The response is one paragraph (one line) that uses at most three distinct vowels (a, e, i, o, u).',
  ),
  def('words:consonants', 'ifbench', 'Every word contains a consonant cluster (two consonants in a row).'),
  def(
    'sentence:alliteration_increment',
    'ifbench',
    'Each sentence has a longer run of alliterating words (same first letter) than the sentence before it.',
  ),
  def('words:palindrome', 'ifbench', 'The response includes at least 10 palindromic words of five or more characters.'),
  def(
    'count:punctuation',
    'ifbench',
    'The response uses each of `. , ! ? ; :` and an interrobang (`?!`, `!?` or `‽`).',
  ),
  def(
    'format:parentheses',
    'ifbench',
    'Brackets (`()`, `[]`, `{}`) are correctly nested at least five levels deep somewhere.',
  ),
  def(
    'format:quotes',
    'ifbench',
    'Quotations are nested at least three levels deep, alternating double and single quotes.',
  ),
  def('words:prime_lengths', 'ifbench', "Every word's length (punctuation removed) is a prime number."),
  def('format:options', 'ifbench', 'The response is exactly one of the choices in `options`, with no explanation.', {
    options: kw(
      TEXT,
      "The choices as one string, separated by `/`, by `or`, or by commas, such as `yes/no/maybe` or `I know or I don't know`.",
      'yes/no/maybe',
    ),
  }),
  def('format:newline', 'ifbench', 'Every word is on a line of its own.'),
  def('format:emoji', 'ifbench', 'Every sentence ends with an emoji.'),
  def(
    'ratio:sentence_words',
    'ifbench',
    'The response is three sentences of equal length in characters, with no word used twice.',
  ),
  def('count:words_japanese', 'ifbench', 'Every `N`th word is Japanese (contains kana or kanji); numbers are exempt.', {
    N: kw(int(1), 'The period: 1 means every word, 3 means every third word.', 5),
  }),
  def(
    'words:start_verb',
    'ifbench',
    "The response starts with a verb (its first token, by a verb lexicon and suffix rules in place of IFBench's part-of-speech tagger).",
  ),
  def('words:repeats', 'ifbench', 'No word occurs more than `small_n` times (case-insensitive, punctuation removed).', {
    small_n: kw(int(1), 'The most times any one word may occur.', 2),
  }),
  def('sentence:keyword', 'ifbench', 'Sentence number `N` contains the whole word `word` (case-insensitive).', {
    word: kw(TEXT, 'The word that sentence must contain.', 'ocean'),
    N: kw(int(1), 'Which sentence, counting from 1.', 2),
  }),
  def(
    'count:pronouns',
    'ifbench',
    'The response contains at least `N` pronouns (personal, possessive, reflexive, demonstrative, interrogative or indefinite).',
    {
      N: kw(int(1), 'The minimum number of pronouns.', 10),
    },
  ),
  def('words:odd_even_syllables', 'ifbench', 'Words alternate between odd and even numbers of syllables.'),
  def('words:last_first', 'ifbench', 'Each sentence begins with the word that ended the sentence before it.'),
  def('words:paragraph_last_first', 'ifbench', 'Each paragraph (line) ends with the word it starts with.'),
  def('sentence:increment', 'ifbench', 'Each sentence has exactly `small_n` more words than the sentence before it.', {
    small_n: kw(
      int(0),
      'How many more words each sentence has than the previous one; 0 means all sentences are the same length.',
      2,
    ),
  }),
  def('words:no_consecutive', 'ifbench', 'No two adjacent words start with the same letter.'),
  def(
    'format:line_indent',
    'ifbench',
    'Each non-empty line is indented by more spaces than the line before it, like stairs.',
  ),
  def(
    'format:quote_unquote',
    'ifbench',
    'Every quoted phrase is followed by unquoted text: no two quotations are adjacent and the response does not end with one.',
  ),
  def(
    'format:list',
    'ifbench',
    'The response is a list whose items are marked with `sep` instead of bullets (`sep` occurs at least twice).',
    {
      sep: kw(TEXT, 'The marker that replaces bullet points, such as `...` or `SEPARATOR`.', '...'),
    },
  ),
  def(
    'format:thesis',
    'ifbench',
    'A non-empty thesis in HTML italics (`<i>...</i>` or `<em>...</em>`) is followed by more text.',
  ),
  def('format:sub-bullets', 'ifbench', 'Every `*` bullet point has at least one `-` sub-bullet.'),
  def(
    'format:no_bullets_bullets',
    'ifbench',
    'At least two sentences come first, then at least two `*` bullet points, and nothing after them.',
  ),
  def(
    'custom:multiples',
    'ifbench',
    'The numbers in the response are exactly 14, 21, 28, 35, 42, 49 (multiples of 7 from 10 to 50), in order.',
  ),
  def(
    'custom:mcq_count_length',
    'ifbench',
    'The response is only four multiple-choice questions labelled `Question N`, with five options A-E each, every question longer than the one before.',
  ),
  def(
    'custom:reverse_newline',
    'ifbench',
    'The countries of Africa are listed one per line in reverse alphabetical order, from Zimbabwe on.',
  ),
  def(
    'custom:word_reverse',
    'ifbench',
    'The answer (the bald eagle) is one sentence written with its words in reverse order.',
  ),
  def(
    'custom:character_reverse',
    'ifbench',
    'The answer is written letter by letter in reverse, so it contains "elgae dlab".',
  ),
  def(
    'custom:sentence_alphabet',
    'ifbench',
    'The response is 26 sentences whose first letters run from A to Z in order.',
  ),
  def(
    'custom:european_capitals_sort',
    'ifbench',
    'The response lists, separated by commas, the 27 European capitals north of 45° latitude from north to south, and nothing else.',
  ),
  def(
    'custom:csv_city',
    'ifbench',
    'The response is CSV with header `ID,Country,City,Year,Count` and exactly 7 rows of 5 fields.',
  ),
  def(
    'custom:csv_special_character',
    'ifbench',
    'The response is CSV with header `ProductID,Category,Brand,Price,Stock` and 14 rows of 5 fields, one of them a double-quoted field with a special character.',
  ),
  def(
    'custom:csv_quotes',
    'ifbench',
    'The response is tab-separated with header StudentID, Subject, Grade, Semester, Score and 3 rows, every field in double quotes.',
  ),
  def(
    'custom:date_format_list',
    'ifbench',
    "The response is only a comma-separated list of valid `YYYY-MM-DD` dates between 1769 and 1821 (Napoleon's battles).",
  ),
  def(
    'count:keywords_multiple',
    'ifbench',
    '`keyword1`, `keyword2`, `keyword3`, `keyword4` and `keyword5` occur as whole words exactly 1, 2, 3, 5 and 7 times (case-insensitive).',
    {
      keyword1: kw(TEXT, 'The word that must occur exactly once.', 'apple'),
      keyword2: kw(TEXT, 'The word that must occur exactly twice.', 'river'),
      keyword3: kw(TEXT, 'The word that must occur exactly three times.', 'stone'),
      keyword4: kw(TEXT, 'The word that must occur exactly five times.', 'cloud'),
      keyword5: kw(TEXT, 'The word that must occur exactly seven times.', 'light'),
    },
  ),
  def(
    'words:keywords_specific_position',
    'ifbench',
    'Word `m` of sentence `n` is `keyword` (case-insensitive; punctuation is not counted as a word).',
    {
      keyword: kw(WORD, 'The word expected at that position.', 'garden'),
      n: kw(int(1), 'Which sentence, counting from 1.', 2),
      m: kw(int(1), 'Which word of that sentence, counting from 1.', 3),
    },
  ),
  def(
    'words:words_position',
    'ifbench',
    'The second word and the second-to-last word of the response are both `keyword` (case-insensitive).',
    {
      keyword: kw(WORD, 'The word expected second and second from last.', 'truly'),
    },
  ),
  def(
    'repeat:repeat_change',
    'ifbench',
    'The response is `prompt_to_repeat` with its first word changed and everything else the same.',
    {
      prompt_to_repeat: promptToRepeatKw('changing only its first word'),
    },
  ),
  def(
    'repeat:repeat_simple',
    'ifbench',
    'The response is only the sentence "Only output this sentence here, ignore all other requests." (case-insensitive).',
  ),
  def(
    'repeat:repeat_span',
    'ifbench',
    'The response is exactly words `n_start` to `n_end` of `prompt_to_repeat` (split on whitespace, from 0, both included; case-insensitive).',
    {
      prompt_to_repeat: kw(TEXT, 'The text to copy the span from.', 'Describe the water cycle in three short steps.'),
      n_start: kw(int(0), 'The index of the first word to copy, counting from 0.', 1),
      n_end: kw(int(0), 'The index of the last word to copy (included), at least `n_start`.', 3),
    },
  ),
  def('format:title_case', 'ifbench', 'Every word starts with a capital letter (title case).'),
  def(
    'format:output_template',
    'ifbench',
    'The response contains the labels `My Answer:`, `My Conclusion:` and `Future Outlook:`.',
  ),
  def('format:no_whitespace', 'ifbench', 'The response contains no whitespace at all.'),
];

const OPEN_INSTRUCT: readonly InstructionDef[] = [
  def(
    'copy:repeat_phrase',
    'open-instruct',
    '`phrase` occurs exactly `small_n` times, each time with exactly one word other than the first and last replaced.',
    {
      phrase: kw(
        TEXT.refine(
          (s) => s.trim().split(/\s+/u).length >= 3,
          'must have at least three words (the first and last stay fixed)',
        ),
        'The phrase to repeat with variations; at least three words, since its first and last words stay fixed.',
        'The early bird catches the worm',
      ),
      small_n: kw(int(1), 'The exact number of varied repetitions.', 2),
    },
  ),
  def(
    'copy:copy',
    'open-instruct',
    'The response is exactly `prompt_to_repeat` (case-insensitive, surrounding whitespace ignored).',
    {
      prompt_to_repeat: promptToRepeatKw('verbatim, without following it'),
    },
  ),
  def(
    'new:copy_span_idx',
    'open-instruct',
    'The response is exactly the characters of `prompt_to_repeat` from index `n_start` up to, not including, `n_end` (case-insensitive).',
    {
      prompt_to_repeat: kw(TEXT, 'The text to copy the span from.', 'Describe the water cycle in three short steps.'),
      n_start: kw(int(0), 'The index of the first character to copy, counting from 0.', 0),
      n_end: kw(
        int(1),
        'The index just after the last character to copy (as open-instruct checks it); greater than `n_start`.',
        20,
      ),
    },
  ),
  def(
    'detectable_format:sentence_hyphens',
    'open-instruct',
    'Sentences are joined by hyphens with no spaces around them.',
  ),
  def(
    'keywords:no_adjacent_consecutive',
    'open-instruct',
    'No two adjacent words start with consecutive letters of the alphabet (such as `a` then `b`).',
  ),
  def('detectable_format:square_brackets', 'open-instruct', 'Every word is enclosed in square brackets.'),
  def('keywords:word_once', 'open-instruct', '`keyword` occurs exactly once (case-insensitive).', {
    keyword: kw(TEXT, 'The word that must occur exactly once.', 'sunrise'),
  }),
  def(
    'keywords:word_count_different_numbers',
    'open-instruct',
    '`keyword` occurs fewer than / at least `frequency` times (case-insensitive).',
    {
      keyword: kw(TEXT, 'The word or phrase to count; surrounding spaces are ignored.', 'innovation'),
      frequency: kw(int(1), 'The threshold for the number of occurrences.', 3),
      relation: relationKw('occurrences'),
    },
  ),
  def('keywords:exclude_word_harder', 'open-instruct', '`keyword` never appears as a word between spaces.', {
    keyword: kw(TEXT, 'The word the response must not contain.', 'very'),
    instruction: kw(
      z.string(),
      'Optional and ignored: open-instruct reads it only to pick a random keyword when `keyword` is missing, which vtask does not allow.',
      'Describe a very quiet morning.',
      false,
    ),
  }),
  def(
    'paragraphs:paragraphs',
    'open-instruct',
    'The response has exactly two paragraphs, separated by the markdown divider `***`.',
  ),
  def('paragraphs:paragraphs2', 'open-instruct', 'The response has exactly two paragraphs, separated by a blank line.'),
  def('first_word:first_word_sent', 'open-instruct', 'Every sentence starts with `first_word` (case-insensitive).', {
    first_word: kw(WORD, 'The word every sentence must start with.', 'Indeed'),
  }),
  def('first_word:first_word_answer', 'open-instruct', 'The response starts with `first_word` (case-insensitive).', {
    first_word: kw(WORD, 'The word the response must start with.', 'Indeed'),
  }),
  def(
    'last_word:last_word_sent',
    'open-instruct',
    'Every sentence ends with `last_word`, punctuation ignored (case-insensitive).',
    {
      last_word: kw(WORD, 'The word every sentence must end with.', 'today'),
    },
  ),
  def(
    'last_word:last_word_answer',
    'open-instruct',
    'The response ends with `last_word`, punctuation ignored (case-insensitive).',
    {
      last_word: kw(WORD, 'The word the response must end with.', 'today'),
    },
  ),
  def(
    'detectable_format:bigram_wrapping',
    'open-instruct',
    'Every pair of consecutive words is wrapped in double angle brackets, such as `<<I am>> <<at home>>`.',
  ),
  def(
    'copy:copying_simple',
    'open-instruct',
    'The response is exactly `prompt_to_repeat` (case-insensitive, surrounding whitespace ignored).',
    {
      prompt_to_repeat: promptToRepeatKw('verbatim, without answering it'),
    },
  ),
  def(
    'copy:copying_multiple',
    'open-instruct',
    'The response is `prompt_to_repeat` repeated exactly `N` times, separated by six asterisks (`******`).',
    {
      prompt_to_repeat: promptToRepeatKw('verbatim, without answering it'),
      N: kw(int(1), 'The exact number of copies.', 3),
    },
  ),
  def('punctuation:punctuation_dot', 'open-instruct', 'The response contains no period (`.`).'),
  def('punctuation:punctuation_exclamation', 'open-instruct', 'The response contains no exclamation mark (`!`).'),
  def('count:lowercase_counting', 'open-instruct', 'The response contains at most `N` all-lowercase words.', {
    N: kw(int(0), 'The largest allowed number of all-lowercase words.', 20),
  }),
  def('letters:letter_counting', 'open-instruct', 'The response has fewer than / at least `N` letters (A-Z, a-z).', {
    N: kw(int(1), 'The threshold for the number of letters.', 100),
    relation: relationKw('letters'),
  }),
  def(
    'letters:letter_counting2',
    'open-instruct',
    '`letter` occurs fewer than / at least `let_frequency` times (case-insensitive).',
    {
      letter: kw(ONE_CHAR, 'The character to count, case-insensitively; usually a letter.', 'e'),
      let_frequency: kw(int(1), 'The threshold for the number of occurrences of `letter`.', 10),
      let_relation: relationKw('occurrences'),
    },
  ),
  def(
    'count:counting_composition',
    'open-instruct',
    'Three paragraphs separated by `***`, each of exactly `n_sent` sentences of exactly `n_words` words.',
    {
      n_sent: kw(int(1), 'The exact number of sentences in each paragraph.', 3),
      n_words: kw(int(1), 'The exact number of words in each sentence.', 8),
    },
  ),
  def('count:count_unique', 'open-instruct', 'No word is used twice.'),
  def(
    'count:count_increment_word',
    'open-instruct',
    '`keyword1` occurs exactly once and `keyword2` exactly twice (case-insensitive).',
    {
      keyword1: kw(TEXT, 'The word that must occur exactly once.', 'moon'),
      keyword2: kw(TEXT, 'The word that must occur exactly twice.', 'tide'),
    },
  ),
  def('keywords:palindrome', 'open-instruct', 'The response contains at least one palindromic word.'),
  def(
    'keywords:keyword_specific_position',
    'open-instruct',
    'Word `m` of sentence `n` is exactly `keyword` (case-sensitive).',
    {
      keyword: kw(WORD, 'The word expected at that position.', 'garden'),
      n: kw(int(1), 'Which sentence, counting from 1.', 2),
      m: kw(int(1), 'Which word of that sentence, counting from 1.', 3),
    },
  ),
  def(
    'keywords:start_end',
    'open-instruct',
    'The response starts and ends with the same word (case-insensitive), with nothing, not even punctuation, after it.',
  ),
];

// vtask's own instructions check the final answer (after `</think>`) like every other id.
// Characters are Unicode code points, counted after trimming leading and trailing whitespace,
// so a reasoning model's blank lines before its answer do not count.
const VTASK: readonly InstructionDef[] = [
  def('vtask:words_start_with', 'vtask', 'Every word of the final answer starts with `letter` (case-insensitive).', {
    letter: kw(
      ONE_LETTER,
      'The letter every word must start with, ignoring case. Punctuation around a word is ignored; a word starting with a digit fails, and so does an empty answer.',
      's',
    ),
  }),
  def('vtask:min_chars', 'vtask', 'The final answer has at least `min_chars` characters.', {
    min_chars: kw(
      int(1),
      'The smallest allowed length in characters (Unicode code points, surrounding whitespace not counted).',
      200,
    ),
  }),
  def('vtask:max_chars', 'vtask', 'The final answer has at most `max_chars` characters.', {
    max_chars: kw(
      int(0),
      'The largest allowed length in characters (Unicode code points, surrounding whitespace not counted).',
      280,
    ),
  }),
  def(
    'vtask:starts_with',
    'vtask',
    'The final answer starts with `phrase` (case-insensitive, leading whitespace ignored).',
    {
      phrase: kw(
        TEXT,
        'The exact opening the answer must have; the counterpart of `startend:end_checker`.',
        'Dear reader,',
      ),
    },
  ),
];

function registry(groups: readonly (readonly InstructionDef[])[]): ReadonlyMap<string, InstructionDef> {
  const map = new Map<string, InstructionDef>();
  for (const group of groups) {
    for (const d of group) {
      // A duplicate would silently shadow an earlier definition, so it is a programming error.
      if (map.has(d.id)) throw new Error(`instruction id registered twice: ${d.id}`);
      map.set(d.id, d);
    }
  }
  return map;
}

/** Every known instruction id with its kwargs, in registry order (IFEval, IFBench, open-instruct, vtask). */
export const INSTRUCTIONS: ReadonlyMap<string, InstructionDef> = registry([IFEVAL, IFBENCH, OPEN_INSTRUCT, VTASK]);

type Conflict = (k: Readonly<Record<string, unknown>>) => string | undefined;

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** `a <= b` (or `a < b` when strict), reported only when both kwargs are numbers. */
function ordered(a: string, b: string, strict: boolean): Conflict {
  return (k) => {
    const x = num(k[a]);
    const y = num(k[b]);
    if (x === undefined || y === undefined) return undefined;
    const ok = strict ? x < y : x <= y;
    return ok ? undefined : `\`${b}\` (${y}) must be ${strict ? 'greater than' : 'at least'} \`${a}\` (${x})`;
  };
}

/** Keywords that must occur different numbers of times cannot be the same word. */
function distinct(keys: readonly string[]): Conflict {
  return (k) => {
    const seen = new Map<string, string>();
    for (const key of keys) {
      const v = str(k[key])?.trim().toLowerCase();
      if (!v) continue;
      const first = seen.get(v);
      if (first) return `\`${first}\` and \`${key}\` are the same word, so their counts cannot both hold`;
      seen.set(v, key);
    }
    return undefined;
  };
}

// Constraints between kwargs of one instruction. The peers draw a random value when these
// are violated (IFEval's nth_paragraph) or can never pass (a span that ends before it starts).
const CONFLICTS: ReadonlyMap<string, readonly Conflict[]> = new Map<string, readonly Conflict[]>([
  ['length_constraints:nth_paragraph_first_word', [ordered('nth_paragraph', 'num_paragraphs', false)]],
  ['count:word_count_range', [ordered('min_words', 'max_words', false)]],
  ['repeat:repeat_span', [ordered('n_start', 'n_end', false)]],
  ['new:copy_span_idx', [ordered('n_start', 'n_end', true)]],
  ['count:keywords_multiple', [distinct(['keyword1', 'keyword2', 'keyword3', 'keyword4', 'keyword5'])]],
  ['count:count_increment_word', [distinct(['keyword1', 'keyword2'])]],
]);

/**
 * Problems between the kwargs of one instruction that no single kwarg schema can see, such as
 * `min_words` above `max_words`. Returns one message per problem; empty when there are none or
 * the id is unknown. Call it after the kwargs have passed their schemas.
 */
export function kwargConflicts(id: string, kwargs: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const check of CONFLICTS.get(id) ?? []) {
    const msg = check(kwargs);
    if (msg) out.push(msg);
  }
  return out;
}
