import { Chats1795753408375 } from './1795753408375-Chats';
import { ChatRunner1795753662189 } from './1795753662189-ChatRunner';

export const CHATS_MIGRATIONS: Function[] = [Chats1795753408375, ChatRunner1795753662189];
