// Source files of other languages that the bundle embeds as text (esbuild's `text` loader).
declare module '*.py' {
  const source: string;
  export default source;
}
