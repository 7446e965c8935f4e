/** The fake provider server and its script vocabulary (test support). */
export * from './fake-provider-server';
export * from './fake-turn';
