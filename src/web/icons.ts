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

// Two reactions lucide has no icon for, drawn here in its style (24 px grid, 2 px strokes, round
// ends): a drawing, not an emoji, so they look the same on a machine without an emoji font.
// Clap: two palms with their thumbs, meeting, and three strokes of the sound.
const Clap: IconNode = [
  ['rect', { x: '4', y: '9', width: '6', height: '12', rx: '3', transform: 'rotate(-20 7 15)' }],
  ['path', { d: 'M4 16 2 13.5', transform: 'rotate(-20 7 15)' }],
  ['rect', { x: '12', y: '8', width: '6', height: '12', rx: '3', transform: 'rotate(20 15 14)' }],
  ['path', { d: 'm18 15 2-2.5', transform: 'rotate(20 15 14)' }],
  ['path', { d: 'M12 2v3' }],
  ['path', { d: 'm6.5 3.5 1.5 2' }],
  ['path', { d: 'm17.5 3.5-1.5 2' }],
];
const Surprised: IconNode = [
  ['circle', { cx: '12', cy: '12', r: '10' }],
  ['path', { d: 'M8 7.5 10 7' }],
  ['path', { d: 'm16 7.5-2-.5' }],
  ['path', { d: 'M9 10h.01' }],
  ['path', { d: 'M15 10h.01' }],
  ['circle', { cx: '12', cy: '15.5', r: '2.5' }],
];

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
  clap: Clap,
  surprised: Surprised,
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
