// Icons from lucide, imported one by one so the bundle holds only these (esbuild drops the rest).
import {
  ChevronLeft,
  ChevronRight,
  CircleQuestionMark,
  createElement,
  Hand,
  Heart,
  Keyboard,
  Laugh,
  MessageSquare,
  Mic,
  MicOff,
  PartyPopper,
  PhoneOff,
  ScreenShare,
  ScreenShareOff,
  Settings,
  ShieldCheck,
  SmilePlus,
  ThumbsDown,
  ThumbsUp,
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
  hand: Hand,
  react: SmilePlus,
  thumbs_up: ThumbsUp,
  thumbs_down: ThumbsDown,
  celebrate: PartyPopper,
  laugh: Laugh,
  heart: Heart,
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
