// How much text is read, decoded or gathered at a time where a large file or report passes
// through in pieces. V8 places a string over about 128 KB in its large-object space, which only a
// full collection frees: pieces of a megabyte piled up as tens of megabytes of dead strings while
// a million-task file was read or its summary written. 32K characters is 64 KB even as two-byte
// text, so each piece dies young, in the cheap collections.

/** Characters (or bytes decoded into at most as many characters) in one piece. */
export const YOUNG_PIECE = 1 << 15;
