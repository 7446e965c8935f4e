/** The fake provider server and its script vocabulary (test support). */

export * from './fake-provider-process';
export * from './fake-provider-server';
export * from './fake-turn';
export * from './model-lists';
export * from './tool-step-script';
export * from './use-fake-provider-server';
