import { type Static, Type } from '@sinclair/typebox';

export const HealthResponse = Type.Object(
  {
    status: Type.Literal('ok'),
    version: Type.String(),
    database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')], {
      description: 'The database this instance uses.',
    }),
    uptimeSeconds: Type.Number(),
  },
  { $id: 'HealthResponse' },
);
export type HealthResponse = Static<typeof HealthResponse>;
