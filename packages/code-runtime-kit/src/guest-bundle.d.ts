/** A module bundled by the build into one guest script, imported as its text (see scripts/build-package.ts). */
declare module 'guest-bundle:*' {
  const source: string;
  export default source;
}
