// The parser's caps sit on the ground floor because the YAML node conversion (base/ynode.ts)
// enforces the alias caps while it expands aliases.
/**
 * Caps on what one task file may ask of the parser. A task file is text a person wrote, so
 * these are far above any real file; they exist so that a hostile or broken file (an alias
 * bomb, a minified megabyte on one line, ten thousand nested brackets) ends in one clear
 * error instead of minutes of work or an out-of-memory crash, in the CLI and in the editor.
 */
export const LIMITS = {
  /** Bytes of one task file (checked by the readers, which see bytes). */
  fileBytes: 64 * 1024 * 1024,
  /** Characters of one line. */
  lineChars: 1_000_000,
  /** Levels of nested mappings and lists. */
  depth: 100,
  /** Alias uses (`*name`) expanded in one task (or the whole file when it is parsed whole). */
  aliases: 1_000,
  /** Nodes produced by expanding aliases, so one huge anchor used many times is caught too. */
  aliasNodes: 100_000,
} as const;
