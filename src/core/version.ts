/** The vtask version, stamped into verdicts and printed by `vtask --version`. Set at build time. */
declare const VTASK_VERSION: string | undefined;
export const version: string = typeof VTASK_VERSION === 'string' ? VTASK_VERSION : '0.0.0-dev';
