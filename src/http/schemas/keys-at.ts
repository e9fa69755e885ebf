import type { z } from 'zod';

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under its wrappers (optional, nullable, default, a transform's input), and of a union the first option of `type`. */
function unwrap(schema: z.ZodType, type: 'object' | 'array'): z.ZodType {
  for (let s = schema; ; ) {
    const def = defOf(s);
    if (def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else if (def.type === 'union' && def.options) {
      const option = def.options.map((o) => unwrap(o, type)).find((o) => defOf(o).type === type);
      if (!option) return s;
      s = option;
    } else return s;
  }
}

/**
 * The keys an object at `path` of a value of `schema` may have (a strict object's shape), or none
 * when `path` leads nowhere known: the names an unknown key there is compared with.
 */
export function keysAt(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  let s = schema;
  for (const step of path) {
    const here = unwrap(s, typeof step === 'number' ? 'array' : 'object');
    const def = defOf(here);
    const next = typeof step === 'number' ? def.element : def.shape?.[step];
    if (!next) return [];
    s = next;
  }
  const def = defOf(unwrap(s, 'object'));
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}
