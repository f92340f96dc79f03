import { fileHeldRequests } from '../approvals/held-requests';
import { fileQuarantine } from '../quarantine/file-backend';

/** What a laptop relay keeps in its data folder besides its incidents: quarantined devices and held approval requests. */
export const dataFolderKeeps = (dataDir: string) => ({ quarantine: fileQuarantine(dataDir), held: fileHeldRequests(dataDir) });
