import { Chats1795753408375 } from './1795753408375-Chats';
import { ChatRunner1795753662189 } from './1795753662189-ChatRunner';
import { ChatPullRequests1795759999918 } from './1795759999918-ChatPullRequests';

export const CHATS_MIGRATIONS: Function[] = [
  Chats1795753408375,
  ChatRunner1795753662189,
  ChatPullRequests1795759999918,
];
