import { type Static, Type } from '@sinclair/typebox';

/** Every error the API returns: `{ error: { code, message } }` (SPEC §15). */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'A stable, machine-readable code.' }),
      message: Type.String({ description: 'What was wrong and what to do about it.' }),
    }),
  },
  { $id: 'ErrorResponse' },
);
export type ErrorResponse = Static<typeof ErrorResponse>;
