/** Shared by validation and loading: what a group folder is called and which files it holds. */
export const GROUP_ID = /^AD\d{6}$/;
export const FILE_NAMES = { fs: 'FS.yaml', raw: 'RAW.yaml', rg: 'RG.md', tests: 'tests' } as const;
