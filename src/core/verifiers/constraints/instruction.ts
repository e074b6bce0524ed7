import type * as z from 'zod';

/** Where an instruction id comes from; ids shared by several registries name the first. */
export type InstructionSource = 'ifeval' | 'ifbench' | 'open-instruct' | 'vtask';

/** One keyword argument of an instruction, with the type IFEval's semantics give it. */
export interface KwargDef {
  /** Validates the value written in the task file (after YAML → JS). */
  readonly schema: z.ZodType;
  /** One or two sentences for hover and completion. */
  readonly doc: string;
  /** Missing required kwargs are validation errors; vtask never draws random defaults. */
  readonly required: boolean;
  /** A value to insert when completing the kwarg. */
  readonly example: unknown;
}

/** A known instruction id: validation, completion and hover all read this one definition. */
export interface InstructionDef {
  readonly id: string;
  readonly source: InstructionSource;
  /** One line saying when the instruction holds. */
  readonly summary: string;
  readonly kwargs: Readonly<Record<string, KwargDef>>;
}
