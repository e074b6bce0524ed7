/*
 * Sentence splitting as nltk's `sent_tokenize` (Punkt, English model) does it, which IFEval's
 * `count_sentences` and IFBench's `split_into_sentences` call. The algorithm is Punkt's: find
 * each `.`, `?` or `!` followed by punctuation or by whitespace and a token, annotate the
 * tokens around it (sentence break, abbreviation, ellipsis, initial, number), then realign
 * closing quotes and brackets onto the sentence before.
 *
 * The English model's abbreviations, collocations and sentence starters are the published
 * punkt_tab parameters (below). Its orthographic context table (about 28,000 word types with
 * how they were seen capitalised) is not shipped: a word in the common-word lists below counts
 * as "seen lowercase mid-sentence and capitalised at a sentence start", any other word as
 * unseen. That table only matters after an abbreviation, an ellipsis, an initial or a number,
 * so ordinary sentences split exactly as nltk splits them (see DIFFERENCES.md).
 *
 * One rule stands in for the table where it matters most: after a lone lowercase letter and a
 * period (`located in o. Let's check`), an unseen capitalised word starts a sentence. nltk keeps
 * `J. Smith` together because `smith` is seen only capitalised, and splits `in o. Let's`
 * because `let's` is seen lowercase; names follow capital initials, not lowercase ones, so
 * without the table the case of the initial tells the two apart.
 */
import { memo, PY_SPACE_CLASS } from './py';
import { at } from '../../../util/must';

const ABBREVIATIONS = new Set(
  (
    'ct m.j t a.c n.h ms p.a.m dr pa p.m u.k st dec u.s.a lt g.k adm p h.m ga tenn yr sen n.c j.j d.h s.g inc vs ' +
    's.p.a a.t n feb sr jan s.a.y n.y col g.f c.o.m.b d ft va r.k e.f chg r.i a.g minn a.h k n.j m l.f f.j gen ' +
    'i.m.s s.a aug j.p okla m.d.c ltd oct s vt r.a j.c ariz w.w b.v ore h w.r e.h mrs cie corp w n.v a.d r.j ok ' +
    'e.m w.c ill nov u.s prof conn u.s.s.r mg f.g ph.d g calif messrs h.f wash tues sw bros u.n l wis mr sep d.c ' +
    'ave e.l co s.s reps c r.t h.c r wed a.s v fla jr r.h c.v m.b.a rep a.a e c.i.t l.a b.f j.b d.w j.k ala f ' +
    'w.va sept mich n.m j.r l.p s.c colo fri a.m g.d kan maj ky a.m.e n.d t.j cos nev'
  ).split(' '),
);

const COLLOCATIONS = new Set([
  '##number## international',
  '##number## rj',
  '##number## commodities',
  '##number## cooper',
  'b stewart',
  '##number## genentech',
  '##number## wedgestone',
  'i toussie',
  '##number## pepper',
  'j fialka',
  'o ludcke',
  '##number## insider',
  '##number## aes',
  'i magnin',
  '##number## credit',
  '##number## corrections',
  '##number## financing',
  '##number## henley',
  '##number## business',
  '##number## pay-fone',
  'b wigton',
  'b edelman',
  'b levine',
  '##number## leisure',
  'b smith',
  'j walter',
  '##number## pegasus',
  '##number## dividend',
  'j aron',
  '##number## review',
  '##number## abreast',
  '##number## who',
  '##number## letters',
  '##number## colgate',
  '##number## cbot',
  '##number## notable',
  '##number## zimmer',
]);

const SENT_STARTERS = new Set(
  (
    'most he since so both these it nevertheless this indeed however instead under similarly some though while ' +
    'when in despite although nonetheless thus there if the nor separately moreover but they yet many according ' +
    'sales among meanwhile even i'
  ).split(' '),
);

/** nltk's English stop words: with the sentence starters, the words treated as commonly lowercase. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his " +
    "himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom " +
    "this that that'll these those am is are was were be been being have has had having do does did doing a an the " +
    'and but if or because as until while of at by for with about against between into through during before after ' +
    'above below to from up down in out on off over under again further then once here there when where why how all ' +
    'any both each few more most other some such no nor not only own same so than too very s t can will just don ' +
    "don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn " +
    "hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn " +
    "shouldn't wasn wasn't weren weren't won won't wouldn wouldn't"
  ).split(' '),
);

// Orthographic context flags, as Punkt names them.
const BEG_UC = 1 << 1;
const MID_UC = 1 << 2;
const UNK_UC = 1 << 3;
const BEG_LC = 1 << 4;
const MID_LC = 1 << 5;
const UNK_LC = 1 << 6;
const UC = BEG_UC | MID_UC | UNK_UC;
const LC = BEG_LC | MID_LC | UNK_LC;

/**
 * Common words that open sentences and are not names: with the stop words and the sentence
 * starters, the words counted as seen lowercase mid-sentence (the table's most frequent such
 * types that open sentences in answers: imperatives, discourse adverbs, greetings).
 */
const COMMON_LOWER = new Set(
  (
    "please let let's thank thanks also yes yeah okay ok sure hello hi hey well now still then next first second " +
    'third finally lastly overall additionally furthermore therefore hence otherwise besides perhaps maybe today ' +
    'tomorrow yesterday here note remember consider make try use check keep see look take go get find ask make ' +
    'add start stop give think imagine enjoy hope good great one two three another every each many much'
  ).split(' '),
);

function orthoContext(type: string): number {
  return STOPWORDS.has(type) || SENT_STARTERS.has(type) || COMMON_LOWER.has(type) ? BEG_UC | MID_LC : 0;
}

// Punkt's English language variables, as JavaScript patterns.
const NON_WORD = `[)";}\\]*:@'({\\[!?]`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.\\s){2,}\\.)`;
const WORD_START = `[^("\`{\\[:;&#*@)}\\]\\-,]`;
const WORD_TOKENIZE = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S`,
  'gu',
);
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(${NON_WORD}|\\s+(\\S+)))`, 'gu');
const BOUNDARY_REALIGN = /^["')\]}]+?(?:\s+|(?=--)|$)/u;
const NUMBER = /^-?[.,]?\d[\d,.-]*\.?$/u;
const ELLIPSIS = /^\.\.+$/u;
const INITIAL = /^[\p{L}_]\.$/u;
const PY_WHITESPACE = new Set(' \t\n\r\v\f'); // string.whitespace, which Punkt uses to find the previous word

interface Tok {
  readonly tok: string;
  readonly type: string;
  readonly periodFinal: boolean;
  readonly firstUpper: boolean;
  readonly firstLower: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeTok(tok: string): Tok {
  const lower = tok.toLowerCase();
  const type = NUMBER.test(lower) ? '##number##' : lower;
  const first = tok[0] ?? '';
  return {
    tok,
    type,
    periodFinal: tok.endsWith('.'),
    firstUpper: first !== first.toLowerCase(),
    firstLower: first !== first.toUpperCase(),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

function typeNoPeriod(t: Tok): string {
  return t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type;
}

function typeNoSentPeriod(t: Tok): string {
  return t.sentbreak ? typeNoPeriod(t) : t.type;
}

function orthoHeuristic(t: Tok): boolean | 'unknown' {
  if (';:,.!?'.includes(t.tok)) return false;
  const ctx = orthoContext(typeNoSentPeriod(t));
  if (t.firstUpper && ctx & LC && !(ctx & MID_UC)) return true;
  if (t.firstLower && (ctx & UC || !(ctx & BEG_LC))) return false;
  return 'unknown';
}

function annotate(tokens: Tok[]): void {
  for (const t of tokens) {
    if (t.tok === '.' || t.tok === '?' || t.tok === '!') t.sentbreak = true;
    else if (ELLIPSIS.test(t.tok)) t.ellipsis = true;
    else if (t.periodFinal && !t.tok.endsWith('..')) {
      const stem = t.tok.slice(0, -1).toLowerCase();
      if (ABBREVIATIONS.has(stem) || ABBREVIATIONS.has(stem.split('-').pop() ?? '')) t.abbr = true;
      else t.sentbreak = true;
    }
  }
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = at(tokens, i);
    const b = at(tokens, i + 1);
    if (!a.periodFinal) continue;
    const typ = typeNoPeriod(a);
    const nextTyp = typeNoSentPeriod(b);
    const initial = INITIAL.test(a.tok);
    if (COLLOCATIONS.has(`${typ} ${nextTyp}`)) {
      a.sentbreak = false;
      a.abbr = true;
      continue;
    }
    if ((a.abbr || a.ellipsis) && !initial) {
      const starter = orthoHeuristic(b);
      if (starter === true) {
        a.sentbreak = true;
        continue;
      }
      if (b.firstUpper && SENT_STARTERS.has(nextTyp)) {
        a.sentbreak = true;
        continue;
      }
    }
    if (initial || typ === '##number##') {
      const starter = orthoHeuristic(b);
      if (starter === false) {
        a.sentbreak = false;
        a.abbr = true;
        continue;
      }
      if (starter === 'unknown' && initial && !a.firstLower && b.firstUpper && !(orthoContext(nextTyp) & LC)) {
        a.sentbreak = false;
        a.abbr = true;
      }
    }
  }
}

function wordTokens(text: string): Tok[] {
  const out: Tok[] = [];
  for (const line of text.split('\n')) {
    WORD_TOKENIZE.lastIndex = 0;
    for (const m of line.matchAll(WORD_TOKENIZE)) out.push(makeTok(m[0]));
  }
  return out;
}

const PLAIN_WORD_BEFORE = /(?:^|[\s"'(\[{])\p{L}{2,}$/u;

/**
 * Whether Punkt would break after the candidate. `?` and `!` always break (a token follows in
 * the context); a period after a plain word of two or more letters that is not a known
 * abbreviation always breaks too (no second-pass rule applies to it), so only the other
 * periods need the full annotation.
 */
function breaksAfter(text: string, c: Candidate): boolean {
  const ch = text[c.start];
  if (ch === '?' || ch === '!') return true;
  const before = text.slice(Math.max(0, c.start - 40), c.start);
  const m = PLAIN_WORD_BEFORE.exec(before);
  if (m && m.index > 0) {
    const word = m[0].replace(/^[\s"'(\[{]/u, '').toLowerCase();
    if (!ABBREVIATIONS.has(word)) return true;
  }
  return containsSentbreak(c.context);
}

/** True when the context has a sentence break before its last token. */
function containsSentbreak(context: string): boolean {
  const toks = wordTokens(context);
  annotate(toks);
  for (let i = 0; i + 1 < toks.length; i++) if (at(toks, i).sentbreak) return true;
  return false;
}

function lastWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (PY_WHITESPACE.has(at(text, i))) return i;
  return 0;
}

interface Candidate {
  readonly start: number;
  readonly end: number;
  /** Where the next token starts, or -1 when punctuation follows directly. */
  readonly nextTok: number;
  readonly context: string;
}

function* candidates(text: string): Generator<Candidate> {
  let prevStart = 0;
  let prevStop = 0;
  let prev: { start: number; end: number; nextTok: number; after: string } | null = null;
  PERIOD_CONTEXT.lastIndex = 0;
  for (const m of text.matchAll(PERIOD_CONTEXT)) {
    const start = m.index;
    const after = m[1] ?? '';
    const next = m[2];
    const before = text.slice(prevStop, start);
    let wordStart = lastWhitespaceIndex(before);
    wordStart = wordStart ? wordStart + prevStop + 1 : prevStart;
    if (prev && prevStop <= wordStart) {
      yield {
        start: prev.start,
        end: prev.end,
        nextTok: prev.nextTok,
        context: text.slice(prevStart, prevStop) + text[prev.start] + prev.after,
      };
    }
    prev = { start, end: start + 1, nextTok: next !== undefined ? start + 1 + after.length - next.length : -1, after };
    prevStart = wordStart;
    prevStop = start;
  }
  if (prev) {
    yield {
      start: prev.start,
      end: prev.end,
      nextTok: prev.nextTok,
      context: text.slice(prevStart, prevStop) + text[prev.start] + prev.after,
    };
  }
}

const TRAILING_SPACE = new RegExp(`[${PY_SPACE_CLASS}]+$`, 'u');

/** The sentences of `text`, as `nltk.sent_tokenize(text)` returns them. Shared result: do not mutate. */
export const sentences = memo(sentencesOf);

function sentencesOf(text: string): string[] {
  const slices: [number, number][] = [];
  let lastBreak = 0;
  for (const c of candidates(text)) {
    if (breaksAfter(text, c)) {
      slices.push([lastBreak, c.end]);
      lastBreak = c.nextTok >= 0 ? c.nextTok : c.end;
    }
  }
  slices.push([lastBreak, text.replace(TRAILING_SPACE, '').length]);
  // Realign: closing quotes or brackets that start a sentence belong to the one before.
  const out: string[] = [];
  let realign = 0;
  for (let i = 0; i < slices.length; i++) {
    const [s1, e1] = at(slices, i);
    const start = s1 + realign;
    const next = slices[i + 1];
    if (!next) {
      if (e1 > start) out.push(text.slice(start, e1));
      continue;
    }
    const m = BOUNDARY_REALIGN.exec(text.slice(next[0], next[1]));
    if (m) {
      out.push(text.slice(start, next[0] + m[0].trimEnd().length));
      realign = m[0].length;
    } else {
      realign = 0;
      if (e1 > start) out.push(text.slice(start, e1));
    }
  }
  return out;
}

/** IFEval's `count_sentences`. */
export function countSentences(text: string): number {
  return sentences(text).length;
}
