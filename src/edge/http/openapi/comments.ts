import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { type DescriptorProto, type EnumDescriptorProto, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

/** Proto comments by fully qualified name: `ferry.v1.Acceptance`, `ferry.v1.Acceptance.id`, `ferry.v1.RequestService.Send`. */
export type ProtoComments = ReadonlyMap<string, string>;

// Field numbers of the descriptor messages, which make up the paths of source code info.
const FILE_MESSAGE = 4;
const FILE_ENUM = 5;
const FILE_SERVICE = 6;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED = 3;
const MESSAGE_ENUM = 4;
const ENUM_VALUE = 2;
const SERVICE_METHOD = 2;

/**
 * Reads the comments of the proto sources through `buf build`. The generated code embeds descriptors without
 * source info, so names and shapes come from there and only the prose comes from here.
 */
export function loadProtoComments(root: string): ProtoComments {
  const image = execFileSync(join(root, 'node_modules/.bin/buf'), ['build', '-o', '-'], { cwd: root, maxBuffer: 256 << 20 });
  const comments = new Map<string, string>();
  for (const file of fromBinary(FileDescriptorSetSchema, image).file) {
    const byPath = new Map<string, string>();
    for (const loc of file.sourceCodeInfo?.location ?? []) {
      const text = clean(loc.leadingComments);
      if (text !== '') byPath.set(loc.path.join('.'), text);
    }
    const put = (name: string, path: number[]) => {
      const text = byPath.get(path.join('.'));
      if (text !== undefined) comments.set(name, text);
    };
    const enums = (list: EnumDescriptorProto[], scope: string, path: number[], tag: number) =>
      list.forEach((e, i) => {
        put(`${scope}.${e.name}`, [...path, tag, i]);
        e.value.forEach((v, j) => put(`${scope}.${e.name}.${v.name}`, [...path, tag, i, ENUM_VALUE, j]));
      });
    const messages = (list: DescriptorProto[], scope: string, path: number[], tag: number) =>
      list.forEach((m, i) => {
        const name = `${scope}.${m.name}`;
        const at = [...path, tag, i];
        put(name, at);
        m.field.forEach((f, j) => put(`${name}.${f.name}`, [...at, MESSAGE_FIELD, j]));
        messages(m.nestedType, name, at, MESSAGE_NESTED);
        enums(m.enumType, name, at, MESSAGE_ENUM);
      });
    messages(file.messageType, file.package, [], FILE_MESSAGE);
    enums(file.enumType, file.package, [], FILE_ENUM);
    file.service.forEach((s, i) => {
      put(`${file.package}.${s.name}`, [FILE_SERVICE, i]);
      s.method.forEach((m, j) => put(`${file.package}.${s.name}.${m.name}`, [FILE_SERVICE, i, SERVICE_METHOD, j]));
    });
  }
  return comments;
}

/** Joins the lines of a `//` comment into one paragraph; the sources wrap prose, they do not format it. */
function clean(comment: string | undefined): string {
  return (comment ?? '').split('\n').map((line) => line.trim()).filter((line) => line !== '').join(' ');
}
