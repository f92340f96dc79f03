import { fileHeldRequests } from '../core/approvals/held-requests';
import { fileQuarantine } from '../core/quarantine/file-backend';

/** What a laptop relay keeps in its data folder besides its incidents: quarantined devices and held approval requests. */
export const dataFolderKeeps = (dataDir: string) => ({ quarantine: fileQuarantine(dataDir), held: fileHeldRequests(dataDir) });
