import packageJson from '../package.json' with { type: 'json' };

export const API_VERSION: string = packageJson.version;
