import { type Static, Type } from '@sinclair/typebox';

/** The admin API (docs/http-api.md#administration): accounts and invites; admins only. */

export const UserRole = Type.Union([Type.Literal('admin'), Type.Literal('user')], {
  description: 'admin: may use the admin API; user: everyone else.',
});
export type UserRole = Static<typeof UserRole>;

export const AdminUser = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: UserRole,
    disabled: Type.Boolean({
      description: 'A disabled account cannot sign in; its keys are refused.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminUser' },
);
export type AdminUser = Static<typeof AdminUser>;

export const AdminUserListResponse = Type.Object(
  { users: Type.Array(AdminUser) },
  { $id: 'AdminUserListResponse' },
);
export type AdminUserListResponse = Static<typeof AdminUserListResponse>;

const Email = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$' });
const Password = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: 'Left out, a password is generated and returned once.',
});

export const CreateUserBody = Type.Object(
  {
    email: Email,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    password: Type.Optional(Password),
    role: Type.Optional(UserRole),
  },
  { additionalProperties: false, $id: 'CreateUserBody' },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    disabled: Type.Optional(
      Type.Boolean({ description: 'true signs the user out everywhere at once.' }),
    ),
    role: Type.Optional(UserRole),
  },
  { additionalProperties: false, $id: 'UpdateUserBody' },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const ResetPasswordBody = Type.Object(
  { password: Type.Optional(Password) },
  { additionalProperties: false, $id: 'ResetPasswordBody' },
);
export type ResetPasswordBody = Static<typeof ResetPasswordBody>;

/** A created account or a reset password; `generatedPassword` only when the server chose it. */
export const AdminUserWithPassword = Type.Object(
  {
    user: AdminUser,
    generatedPassword: Type.Optional(
      Type.String({ description: 'Shown once: hand it to the user.' }),
    ),
  },
  { $id: 'AdminUserWithPassword' },
);
export type AdminUserWithPassword = Static<typeof AdminUserWithPassword>;

export const CreateInviteBody = Type.Object(
  {
    email: Type.Optional(Email),
    expiresInHours: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 720, description: 'Default 168 (a week).' }),
    ),
  },
  { additionalProperties: false, $id: 'CreateInviteBody' },
);
export type CreateInviteBody = Static<typeof CreateInviteBody>;

export const Invite = Type.Object(
  {
    id: Type.String(),
    email: Type.Union([Type.String(), Type.Null()], {
      description: 'When set, only this address may sign up with the invite.',
    }),
    createdBy: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    usedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    usedBy: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Invite' },
);
export type Invite = Static<typeof Invite>;

export const CreatedInvite = Type.Object(
  {
    invite: Invite,
    token: Type.String({
      description:
        'Shown once. The invited person signs up with it in the X-Invite-Token header of POST /api/auth/sign-up/email.',
    }),
  },
  { $id: 'CreatedInvite' },
);
export type CreatedInvite = Static<typeof CreatedInvite>;

export const InviteListResponse = Type.Object(
  { invites: Type.Array(Invite) },
  { $id: 'InviteListResponse' },
);
export type InviteListResponse = Static<typeof InviteListResponse>;

export const AdminUserParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** The directories a user's system tools may reach (docs/security.md#system-tools-are-granted). */
export const GrantedRoots = Type.Object(
  {
    roots: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      maxItems: 100,
      description:
        'Absolute directories (or starting with ~) on the server, outside its data directory. Admins need none: their system tools reach anywhere; anyone else has none until granted.',
    }),
  },
  { additionalProperties: false, $id: 'GrantedRoots' },
);
export type GrantedRoots = Static<typeof GrantedRoots>;
