export { startWebexFake, newRoomId, type WebexFake, type WebexFakeOptions, type PostedMessage, type CardClick } from './webex-fake';
export { fakeJwe } from './fake-jwe';
