// The kind of a verifier, worked out in one place: a verifier is written `{kind: params}`, so its
// kind is the key of that mapping. Validation reports a verifier with more keys; readers that
// show or count kinds take the first.

/** The kind name (`math`, `all`, ...) of a `{kind: params}` verifier; undefined for one that is not a mapping or is empty. */
export function verifierKind(verify: unknown): string | undefined {
  return verify && typeof verify === 'object' && !Array.isArray(verify) ? Object.keys(verify)[0] : undefined;
}
