/*
 * Whether a response starts with a verb, for IFBench's `words:start_verb`. IFBench tags the
 * response's Treebank tokens with nltk's averaged-perceptron tagger and asks whether the first
 * tag is a verb tag (VB, VBD, VBG, VBN, VBP, VBZ). vtask ships no tagger model; it decides the
 * first token with a lexicon (auxiliaries, common verbs and their irregular forms), the
 * closed word classes that are never verbs, suffix rules for the rest (-ing, -ed, -ize, -ify)
 * and one rule of context: a verb-or-noun word followed by a verb (`is`, `can`, `shows`) is the
 * subject ("Love is patient", "Research shows…"). Differences are listed in ../DIFFERENCES.md.
 */
import { wordTokenize } from './treebank';

const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

/** Tagged as verbs wherever they stand (VBZ, VBP, VBD, VB...). */
const AUXILIARIES = words('be am is are was were been being do does did done have has had having');

/** Determiners, pronouns, prepositions, conjunctions, modals (MD, not VB), adverbs, interjections. */
const NEVER_VERBS = words(`
  a an the this that these those some any no every each either neither all both few many much more most other another such what which whose
  i you he she it we they me him her us them my your his its our their mine yours hers ours theirs myself yourself itself ourselves themselves
  who whom whoever whatever whichever someone somebody something anyone anybody anything everyone everybody everything nobody nothing none one
  in on at by for with about against between into through during before after above below to from up down out off over under again further
  then once here there when where why how as of than so too very just only also not never always often sometimes usually already still yet like
  and but or nor if because although though while unless until since whether
  can could will would shall should may might must
  yes no hi hello hey oh ah wow well okay ok sure thanks please indeed certainly absolutely great dear welcome
  today tomorrow yesterday now soon perhaps maybe however therefore moreover furthermore finally first firstly second secondly next last lastly
`);

/** Base forms of common verbs: imperatives open many responses ("Imagine…", "Write…", "Let's…"). */
const VERBS = words(`
  accept achieve act adapt add adjust admire admit adopt advise affect agree aim allow analyze analyse answer apply appreciate approach argue arrange
  ask assess assume attach attempt attend avoid bake balance battle bear beat become begin believe belong bend bet bind bite blend block blow boil
  book borrow bounce break breathe bring brush build burn buy calculate call calm care carry catch celebrate change charge chase check cheer choose
  clarify claim clean clear click climb close collect combine come compare compile complete compose compute concentrate conclude confirm connect
  consider contact continue contribute control convert convince cook copy count cover crack craft create cross cry cultivate cut dance deal decide
  declare define deliver demonstrate deny describe design determine develop die dig discover discuss dive divide do double draft drag draw dream
  dress drink drive drop dry earn eat educate elevate eliminate embark embrace emphasize employ enable encourage end engage enhance enjoy ensure
  enter envision escape establish estimate evaluate examine expand expect experience experiment explain explore express extend face fail fall feed
  feel fetch fight figure fill find finish fix flip float flow fly fold follow forget forgive form foster freeze gain gather generate get give go
  grab grant grasp greet grind grow guess guide handle hang happen harness hate head hear heat help hide highlight hire hit hold hope hug hunt hurry
  identify ignore illustrate imagine implement improve include increase indicate inform insert inspire install integrate interpret introduce invent
  invest investigate invite join judge jump keep kick kill kiss knock know label lack land laugh launch lay lead lean learn leave lend let lie lift
  like limit link listen live locate lock look lose love lower maintain make manage mark match measure meet melt mention mind mix move multiply name
  navigate need negotiate note notice obey observe obtain offer open operate order organize organise outline own pack paint pass pause pay perform
  persuade pick picture place plan plant play point polish pour practice practise praise pray predict prefer prepare present preserve press pretend
  prevent print proceed produce promise promote protect prove provide pull punch purchase pursue push put raise reach react read realize realise
  recall receive recognize recommend record recycle reduce reflect refuse regard relax release rely remain remember remind remove rent repair repeat
  replace reply report request require research reserve resist resolve respect respond rest restore retain retire return reveal review revise ride
  ring rinse rise roll rub run rush satisfy save say scan schedule score scroll search secure see seek seem select sell send separate serve set settle
  shake shape share shift shine shoot shop shout show shut sing sink sip sit sketch skip sleep slice slide slow smell smile solve sort speak spend
  spin split spread squeeze stand start stay steal step stick stir stop store stretch strike strive study submit subtract succeed suggest sum
  summarize summarise supply support suppose surround survive swim switch take talk taste teach tear tell tend test thank think throw tie toss touch
  trace track trade train transfer transform translate travel treat trim trust try turn type understand unite unlock update upgrade use utilize
  value verify visit visualize vote wait wake walk want warm warn wash waste watch water wear weigh whisk win wipe wish wonder work worry wrap write
  yell
`);

/** Irregular past and participle forms (VBD, VBN). */
const IRREGULAR = words(`
  ate became began bent bit blew bore bought brought broke broken built burnt caught chose chosen came dealt did drew drawn drank drove driven
  eaten fell fallen fed felt fought found flew flown forgot forgotten froze frozen gave given got gotten went gone grew grown hung heard hid hidden
  held hurt kept knew known laid led left lent lost made meant met paid ran rang rose risen said sat saw seen sought sold sent shook shot shown
  shut sang sung sank sat slept slid spoke spoken spent spun stood stole stuck struck swore swam swum took taken taught tore torn told thought threw
  thrown understood woke won wore worn wrote written
`);

/** Nouns, adjectives and prepositions that end like verb forms. */
const NOT_VERB_FORMS = words(`
  thing morning evening spring string ceiling wedding pudding sibling darling during awning lightning shilling herring viking duckling
  seedling inkling offspring clothing
  interesting amazing exciting stunning fascinating surprising outstanding breathtaking charming boring thrilling astonishing compelling
  promising rewarding refreshing satisfying striking frightening annoying challenging
  hundred sacred naked wicked kindred rugged beloved greed creed speed
  enterprise expertise franchise premise otherwise likewise clockwise noise paradise
`);

/** The verbs that, like a noun, can be a sentence's subject: `Love is…`, `Plans are…`. */
const SUBJECT_FOLLOWERS = words('is are was were has have had can could will would should may might must');

/** True when a lowercase word is a verb form: in the lexicon, inflected from it, or by its suffix. */
function isVerbForm(w: string): boolean {
  if (AUXILIARIES.has(w) || IRREGULAR.has(w)) return true;
  if (NEVER_VERBS.has(w) || NOT_VERB_FORMS.has(w)) return false;
  if (VERBS.has(w)) return true;
  // Past forms and participles of the lexicon's verbs (a word ending in -s that opens a response
  // is far more often a plural noun than a verb, so -s forms are not inflected here).
  const stems = [
    w.replace(/ied$/, 'y'),
    w.replace(/ed$/, ''),
    w.replace(/d$/, ''),
    w.replace(/(.)\1ed$/, '$1'),
    w.replace(/ing$/, ''),
    w.replace(/ing$/, 'e'),
    w.replace(/(.)\1ing$/, '$1'),
  ];
  if (stems.some((s) => s !== w && VERBS.has(s))) return true;
  // Unknown words: gerunds and participles by their endings, verbs made with -ize, -ise, -ify.
  return w.length >= 5 && /(?:ing|ed|ize|ise|ify|ized|ised|ified)$/.test(w);
}

/** Whether the response's first Treebank token is a verb, as IFBench's tagger is asked. */
export function startsWithVerb(response: string): { verb: boolean; first?: string } {
  const tokens = wordTokenize(response).slice(0, 2);
  const first = tokens[0];
  if (first === undefined) return { verb: false };
  const w = first.toLowerCase();
  if (!/^[a-z]+$/.test(w)) return { verb: false, first };
  if (!isVerbForm(w)) return { verb: false, first };
  // A verb-or-noun word before a verb of its own is the subject: `Research shows…`, `Love is…`.
  const next = tokens[1]?.toLowerCase() ?? '';
  const nextIsVerb =
    SUBJECT_FOLLOWERS.has(next) ||
    (/s$/.test(next) &&
      [next.replace(/s$/, ''), next.replace(/es$/, ''), next.replace(/ies$/, 'y')].some((x) => VERBS.has(x)));
  return { verb: AUXILIARIES.has(w) || IRREGULAR.has(w) || !nextIsVerb, first };
}
