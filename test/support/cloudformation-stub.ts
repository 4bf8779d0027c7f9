/**
 * A stand-in for CloudFormation's DescribeStacks on loopback (there is no local CloudFormation), answering
 * in the awsQuery XML the real @aws-sdk/client-cloudformation parses
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_DescribeStacks.html), so the
 * operator's `--stack` runs through the real client: point it here with AWS_ENDPOINT_URL_CLOUDFORMATION.
 * A stack it does not hold gets CloudFormation's answer: 400, ValidationError "Stack with id X does not exist".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CloudFormationStub {
  readonly endpoint: string;
  /** The StackName of each DescribeStacks request, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const NAMESPACE = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

export async function startCloudFormationStub(
  stacks: Readonly<Record<string, Readonly<Record<string, string>>>>,
): Promise<CloudFormationStub> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      const stackName = form.get('StackName') ?? '';
      requests.push(stackName);
      const outputs = stacks[stackName];
      if (form.get('Action') !== 'DescribeStacks' || outputs === undefined) {
        const message =
          form.get('Action') === 'DescribeStacks'
            ? `Stack with id ${stackName} does not exist`
            : `${form.get('Action')} is not served here`;
        response.writeHead(400, { 'content-type': 'text/xml' }).end(errorXml('ValidationError', message));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/xml' }).end(describeStacksXml(stackName, outputs));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function describeStacksXml(stackName: string, outputs: Readonly<Record<string, string>>): string {
  const members = Object.entries(outputs)
    .map(
      ([key, value]) =>
        `<member><OutputKey>${xmlText(key)}</OutputKey><OutputValue>${xmlText(value)}</OutputValue></member>`,
    )
    .join('');
  return `<DescribeStacksResponse xmlns="${NAMESPACE}"><DescribeStacksResult><Stacks><member>
<StackName>${xmlText(stackName)}</StackName>
<StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${xmlText(stackName)}/0b3f6a52-8d0c-4e59-a1a2-5c3d2e1f0a9b</StackId>
<CreationTime>2026-11-30T12:00:00.000Z</CreationTime>
<StackStatus>CREATE_COMPLETE</StackStatus>
<Outputs>${members}</Outputs>
</member></Stacks></DescribeStacksResult>
<ResponseMetadata><RequestId>5ccc7dcd-744c-11e5-be70-1b08c228efb3</RequestId></ResponseMetadata>
</DescribeStacksResponse>`;
}

function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlText(message)}</Message></Error><RequestId>5ccc7dcd-744c-11e5-be70-1b08c228efb3</RequestId></ErrorResponse>`;
}

function xmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
