import { Chats1795753408375 } from './1795753408375-Chats';

export const CHATS_MIGRATIONS: Function[] = [Chats1795753408375];
