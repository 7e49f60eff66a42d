// Icons from lucide, imported one by one so the bundle holds only these (esbuild drops the rest).
import {
  ChevronLeft,
  ChevronRight,
  CircleQuestionMark,
  createElement,
  Keyboard,
  MessageSquare,
  Mic,
  MicOff,
  PhoneOff,
  ScreenShare,
  ScreenShareOff,
  Settings,
  ShieldCheck,
  Users,
  Video,
  VideoOff,
  X,
  type IconNode,
} from 'lucide';

export const icons = {
  mic: Mic,
  micOff: MicOff,
  camera: Video,
  cameraOff: VideoOff,
  share: ScreenShare,
  shareOff: ScreenShareOff,
  people: Users,
  chat: MessageSquare,
  moderation: ShieldCheck,
  leave: PhoneOff,
  help: CircleQuestionMark,
  keyboard: Keyboard,
  close: X,
  settings: Settings,
  previous: ChevronLeft,
  next: ChevronRight,
} satisfies Record<string, IconNode>;

export type IconName = keyof typeof icons;

/** An icon is decoration: the control it sits in carries the name (aria-label). */
export function icon(name: IconName): SVGElement {
  return createElement(icons[name], {
    'aria-hidden': 'true',
    focusable: 'false',
    class: 'icon',
    width: 22,
    height: 22,
  });
}
